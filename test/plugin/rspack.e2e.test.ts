/**
 * `promptlock/rspack` with real Rspack 2, through its Node API: the cases every bundler passes
 * (bundler-cases.ts), the module generated on `beforeRun` / `watchRun`.
 */
import { type RspackOptions, rspack } from '@rspack/core';
import promptlock from '../../src/plugin/rspack.js';
import { type Compiler, webpackLikeCases } from './webpack-like.js';

webpackLikeCases('promptlock/rspack', (options) => rspack(options as RspackOptions) as unknown as Compiler, promptlock);
