#!/usr/bin/env node
// The live fleet tests (test/live/) start a real Redis server on a loopback port: Debian's
// redis-server. Installs it when it is missing and this machine can (root with apt-get), so that
// `npm test` sets up a fresh machine by itself; otherwise says what to install. Never starts it.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const REDIS_SERVER = '/usr/bin/redis-server';
if (!existsSync(REDIS_SERVER)) {
  const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
  if (!canInstall) {
    console.warn(`${REDIS_SERVER} is missing: the live fleet tests need it (Debian: apt-get install redis-server).`);
  } else {
    console.log('Installing redis-server (Debian) for the live fleet tests…');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'redis-server'], { stdio: 'inherit', env });
  }
}
