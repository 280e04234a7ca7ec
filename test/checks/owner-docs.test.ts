import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ownerApiMarkdown } from '../../scripts/owner-docs';
import { OWNER_ACTIONS } from '../../src/shared/api/owner-api';
import { ownerActionNames } from '../../src/main/owner/actions';

test('docs/owner-api.md is generated from the owner API contract and up to date', () => {
  assert.equal(fs.readFileSync('docs/owner-api.md', 'utf8'), ownerApiMarkdown());
});

test('every action of the owner API contract has a handler in the hub', () => {
  assert.deepEqual(ownerActionNames().sort(), Object.keys(OWNER_ACTIONS).sort());
});
