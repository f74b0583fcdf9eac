#!/usr/bin/env node
await (await import('../dist/cli/main.js')).start();
