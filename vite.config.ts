import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { precompressPlugin } from './scripts/vite-precompress.ts';

// The web app lives in web/; the server serves the build from dist/web, with a brotli and a
// gzip copy of each text file made here (scripts/vite-precompress.ts).
export default defineConfig({
  root: 'web',
  plugins: [react(), precompressPlugin()],
  build: { outDir: '../dist/web', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/trpc': 'http://127.0.0.1:3000', '/hooks': 'http://127.0.0.1:3000' } },
});
