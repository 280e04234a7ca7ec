#!/usr/bin/env node
'use strict';
// The perch command. The TypeScript sources are built into dist/ by `npm install` (prepare) or `npm run build`.
const path = require('node:path');
const fs = require('node:fs');
const entry = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('perch: not built yet. Run `npm install` (or `npm run build`) in ' + path.join(__dirname, '..') + '\n');
  process.exit(2);
}
require(entry).main(process.argv.slice(2)).catch((err) => {
  process.stderr.write('perch: ' + (err && err.stack ? err.stack : String(err)) + '\n');
  process.exit(1);
});
