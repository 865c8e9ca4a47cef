#!/usr/bin/env node
// The provisioning CLI (`npx kontor ...`): runs the TypeScript source through tsx.
require('tsx/cjs');
require('./cli.ts');
