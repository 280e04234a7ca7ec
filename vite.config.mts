// Builds the owner UI (src/renderer) into dist/renderer, served by `perch serve` and loaded by the Electron window.
// The output must run under CSP `script-src 'self'`: no inline scripts, no eval.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, 'src/renderer');

export default defineConfig({
  root,
  base: './',
  plugins: [react()],
  build: {
    outDir: path.resolve(import.meta.dirname, 'dist/renderer'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // No data: URIs for assets and no inline module-preload polyfill: everything is a file under 'self'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1024,
  },
  server: { host: '127.0.0.1' },
});
