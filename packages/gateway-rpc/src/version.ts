/** The gateway's protocol/package version, reported by `gateway.info`. Bump with breaking wire changes. */
export const GATEWAY_VERSION = '0.1.0';
