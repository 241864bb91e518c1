/**
 * `promptlock/webpack` with real webpack 5, through its Node API: the cases every bundler passes
 * (bundler-cases.ts), the module generated on `beforeRun` / `watchRun`.
 */
import webpack, { type Configuration } from 'webpack';
import promptlock from '../../src/plugin/webpack.js';
import { type Compiler, webpackLikeCases } from './webpack-like.js';

webpackLikeCases('promptlock/webpack', (options) => webpack(options as Configuration) as unknown as Compiler, promptlock);
