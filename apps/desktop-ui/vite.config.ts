// Vite build and dev server for the desktop UI. The build goes to dist/ with a relative base so the
// gateway can serve it from any path; in dev, /rpc (HTTP + WebSocket) is proxied to a running gateway.
// The dev page holds no token either: open the gateway's launch URL (the line `recall serve` prints)
// once in the same browser, then the dev server at http://127.0.0.1:5173 — cookies are not
// port-scoped, so the browser sends the gateway's session cookie here too and the proxy passes it on.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const gatewayTarget = process.env.RECALL_GATEWAY_URL ?? 'http://127.0.0.1:7821';

export default defineConfig({
  base: './',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
  server: {
    host: '127.0.0.1',
    proxy: {
      // The gateway only accepts its own Host and Origin (DNS-rebinding / CSRF guard): present the
      // proxied requests as coming from the gateway's origin. Dev only; the built UI is same-origin.
      '/rpc': {
        target: gatewayTarget,
        changeOrigin: true,
        ws: true,
        configure(proxy) {
          const origin = new URL(gatewayTarget).origin;
          proxy.on('proxyReq', (req) => {
            if (req.getHeader('origin')) req.setHeader('origin', origin);
          });
          proxy.on('proxyReqWs', (req) => {
            if (req.getHeader('origin')) req.setHeader('origin', origin);
          });
        },
      },
    },
  },
  preview: { host: '127.0.0.1' },
});
