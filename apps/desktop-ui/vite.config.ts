// Vite build and dev server for the desktop UI. The build goes to dist/ with a relative base so the
// gateway can serve it from any path; in dev, /rpc (HTTP + WebSocket) is proxied to a running gateway
// and the gateway token is injected the same way the gateway does it (a <meta name="recall-token">).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const gatewayTarget = process.env.RECALL_GATEWAY_URL ?? 'http://127.0.0.1:7821';

/** Dev only: read the per-install token so `vite` against a local gateway works without copy-paste. */
function devToken(): Plugin {
  return {
    name: 'recall-dev-token',
    apply: 'serve',
    transformIndexHtml(html) {
      let token = process.env.RECALL_TOKEN ?? '';
      if (!token) {
        const home = process.env.RECALL_HOME ?? join(homedir(), '.recall');
        try {
          token = readFileSync(join(home, 'gateway.token'), 'utf8').trim();
        } catch {
          token = '';
        }
      }
      if (!token) return html;
      const safe = token.replace(/[^A-Za-z0-9._~+/=-]/g, '');
      return html.replace('</head>', `  <meta name="recall-token" content="${safe}">\n  </head>`);
    },
  };
}

export default defineConfig({
  base: './',
  plugins: [react(), devToken()],
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
