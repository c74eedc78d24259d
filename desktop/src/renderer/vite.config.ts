import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

/** Builds the renderer into desktop/dist/renderer, served by both shells. */
export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [react()],
  resolve: { conditions: ['@svc/source', ...defaultClientConditions] },
  build: { outDir: '../../dist/renderer', emptyOutDir: true, sourcemap: false },
});
