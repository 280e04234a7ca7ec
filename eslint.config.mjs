// Layers by runtime, enforced: src/shared is pure (no Node, DOM or Electron); hub/ and store/ know
// nothing of HTTP, MCP or Electron; the MCP and owner doors never import store/; the renderer sees
// only src/shared and its own code.
import tseslint from 'typescript-eslint';
import perch from './eslint/perch-rules.mjs';

const nodeBuiltins = [
  'node:*',
  'fs',
  'path',
  'os',
  'crypto',
  'http',
  'https',
  'net',
  'child_process',
  'url',
  'util',
  'stream',
  'events',
  'buffer',
  'zlib',
];

export default tseslint.config(
  { linterOptions: { reportUnusedDisableDirectives: 'off' } },
  { ignores: ['dist/**', 'release/**', 'node_modules/**', 'e2e/artifacts/**', 'bench/results/**'] },
  // typescript-eslint's recommended rules for TypeScript files (they bring the parser and plugin).
  ...tseslint.configs.recommended.map((c) => ({ ...c, files: ['**/*.ts', '**/*.tsx'] })),
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      // Off: parsed JSON (wire replies, hook input, JSON-RPC params) is read as `any` and checked field by field where used.
      '@typescript-eslint/no-explicit-any': 'off',
      // A leading _ names a value dropped on purpose (an unused argument, or a field left out of a rest copy).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // The shape, enforced (eslint/perch-rules.mjs): no import circles anywhere in src/ (type-only imports count), and
    // imports go one way between the areas of src/, of src/main, and of the domain src/main/hub. Each area lists
    // what it may import ('' = the files directly in that folder); the rule is anchored at each folder, so it holds
    // at any depth. The domain's areas, lowest first: core (the hub, bus, views, deadlines, limits) › identity (keys,
    // run keys, owner logins, a tool call's context) › control (pause, caps, brakes, the fleet's summaries) › talk
    // (conversations, messages, delivery, access, sessions) › features (requests, cards, files, handoffs, tasks,
    // claims, floor, state, context, progress, review, owner services) › tools (the tool map and its runner); phone
    // (devices, pairing, notices, action tokens) and wake-runs (the wake runs' policy and records) sit beside tools;
    // src/main/hub/services.ts (the whole HubServices) sits on top of them all.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { perch },
    rules: {
      'perch/no-import-circle': ['error', { root: 'src' }],
      'perch/area-direction': [
        'error',
        {
          layers: [
            { root: 'src', allowed: { shared: [], main: ['shared'], renderer: ['shared'] } },
            {
              root: 'src/main',
              allowed: {
                store: [],
                hub: ['store'],
                mcp: ['hub', ''],
                owner: ['hub', ''],
                push: ['hub'],
                launcher: ['hub', 'store'],
                cli: ['', 'hub', 'owner', 'store'],
                electron: ['', 'hub', 'owner', 'store'],
                '': ['', 'store', 'hub', 'mcp', 'owner', 'push', 'launcher'],
              },
            },
            {
              root: 'src/main/hub',
              allowed: {
                core: [],
                identity: ['core'],
                control: ['core', 'identity'],
                talk: ['core', 'identity', 'control'],
                features: ['core', 'identity', 'control', 'talk'],
                tools: ['core', 'identity', 'control', 'talk', 'features'],
                phone: ['core', 'identity', 'control', 'talk', 'features'],
                'wake-runs': ['core', 'identity', 'control', 'talk', 'features'],
                // services.ts, the hub's whole HubServices: joins every area's; no area imports it.
                '': ['core', 'identity', 'control', 'talk', 'features', 'tools', 'phone', 'wake-runs'],
              },
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'src/shared is pure: no Node modules.' },
            {
              group: ['electron', 'react', 'react-dom', 'better-sqlite3', 'sharp'],
              message: 'src/shared is pure: no runtime-specific packages.',
            },
            { group: ['**/main/**', '**/renderer/**'], message: 'src/shared depends on nothing else of Perch.' },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'window', 'document', 'process', 'Buffer', 'require'],
    },
  },
  {
    files: ['src/main/hub/**/*.ts', 'src/main/store/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:http', 'node:https', 'http', 'https', 'node:net', 'net'], message: 'hub/ and store/ know nothing of HTTP.' },
            { group: ['electron'], message: 'hub/ and store/ know nothing of Electron.' },
            {
              group: ['web-push'],
              message:
                'hub/ and store/ take senders and launchers by injection (app.ts), never the modules that reach the network or spawn processes (the area rule above keeps push/ and launcher/ out).',
            },
            {
              group: ['@modelcontextprotocol/*'],
              message:
                'hub/ and store/ know nothing of the doors (MCP, owner API, CLI, Electron; the area rule above keeps their folders out).',
            },
          ],
        },
      ],
    },
  },
  {
    // The doors are thin: they call hub services and never reach the store (SQL) themselves.
    files: ['src/main/owner/**/*.ts', 'src/main/mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/store/**', '**/store'],
              message: 'The MCP and owner doors reach the store only through hub services (src/main/hub).',
            },
          ],
        },
      ],
    },
  },
  {
    // The perch command calls hub services and store/ functions; it opens no SQLite file itself.
    files: ['src/main/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['better-sqlite3'],
              message:
                'SQL lives only in src/main/store: the CLI calls a store function (e.g. store/backup/restore.ts) instead of opening SQLite.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'The renderer runs in a browser.' },
            { group: ['electron', '**/main/**'], message: 'The renderer talks only through the owner API contract (src/shared).' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    ignores: ['src/renderer/sync/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='setState']",
          message: 'Stores are written only through the sync layer (src/renderer/sync): call or add a named action there.',
        },
      ],
    },
  },
);
