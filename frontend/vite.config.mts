import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';
import { PAGE_FILES, pageFiles } from './build/page-files.mts';

// The web app: `npm run build:frontend` writes frontend/dist (served by the API when SERVE_FRONTEND is on);
// `npm run dev:frontend` serves it with hot reload and proxies the API and socket.io to the API on :3000.
const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.VITE_API_TARGET ?? 'http://localhost:3000';

export default defineConfig({
  root,
  plugins: [
    // pages/<path>.html for the public pages and the admin login: their chunks preloaded, `/` prerendered.
    pageFiles(PAGE_FILES),
    // Brotli and gzip copies of every static text asset beside it; the API serves the best one the browser
    // accepts (backend/src/static-assets.ts), so nothing is compressed per request. The HTML pages are not
    // among them: the API writes the public config into each and compresses the result once.
    compression({
      algorithms: [defineAlgorithm('brotliCompress'), defineAlgorithm('gzip', { level: 9 })],
      include: /\.(js|mjs|css|json|svg|txt|xml|webmanifest)$/,
      threshold: 512,
    }),
  ],
  // Vite's built-in Oxc transform handles TSX (no React plugin needed).
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    target: 'es2022',
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      // The build prerenders pages and compresses every asset in plugin callbacks: slow by design, not worth a warning.
      checks: { bundlerTimings: false },
      onwarn(warning, warn) {
        // MUI and React Router mark their modules "use client" (a React Server Components hint); meaningless in a client bundle.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE' && warning.message.includes('use client')) return;
        warn(warning);
      },
    },
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: api, changeOrigin: true },
      '/socket.io': { target: api, changeOrigin: true, ws: true },
    },
  },
  preview: { port: 4173 },
});
