import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The web app: `npm run build:frontend` writes frontend/dist (served by the API when SERVE_FRONTEND is on);
// `npm run dev:frontend` serves it with hot reload and proxies the API and socket.io to the API on :3000.
const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.VITE_API_TARGET ?? 'http://localhost:3000';

export default defineConfig({
  root,
  // Vite's built-in Oxc transform handles TSX (no React plugin needed).
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    target: 'es2022',
    chunkSizeWarningLimit: 600,
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
