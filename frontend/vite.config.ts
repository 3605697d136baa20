import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The web app: `npm run build:frontend` writes frontend/dist (served by the API when SERVE_FRONTEND is on);
// `npm run dev:frontend` serves it with hot reload and proxies the API and socket.io to the API on :3000.
const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.VITE_API_TARGET ?? 'http://localhost:3000';

export default defineConfig({
  root,
  // Vite's built-in esbuild transform handles TSX (no React plugin needed).
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    target: 'es2022',
    chunkSizeWarningLimit: 600,
    rollupOptions: {
      onwarn(warning, warn) {
        // MUI marks its modules "use client" (a React Server Components hint); meaningless in a client bundle.
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
