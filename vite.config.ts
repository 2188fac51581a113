import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The web app lives in web/; the server serves the build from dist/web.
export default defineConfig({
  root: 'web',
  plugins: [react()],
  build: { outDir: '../dist/web', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/trpc': 'http://127.0.0.1:3000', '/hooks': 'http://127.0.0.1:3000' } },
});
