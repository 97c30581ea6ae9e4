import { DOMAIN_ERROR_CODES, JSONRPC_INVALID_PARAMS, RPC_METHODS, type DomainErrorCode, type RpcParamsInput } from '@recall/rpc-contract';

// A client types its call with the input side of the method's schema …
const params: RpcParamsInput<'session.messages'> = { sessionId: 's_demo', limit: 50 };

// … and the gateway validates with exactly that schema; defaults are applied.
const schema = RPC_METHODS['session.messages'].params;
const ok = schema.safeParse(params);
if (ok.success) console.log(`valid: ${JSON.stringify(ok.data)}`);

// Unknown keys and out-of-range values fail; the gateway answers them with -32602.
const bad = schema.safeParse({ sessionId: '', limit: 0, color: 'red' });
if (!bad.success) {
  const issues = bad.error.issues.map((issue) => `${issue.path.join('.') || '(params)'} ${issue.code}`);
  console.log(`invalid, JSON-RPC ${JSONRPC_INVALID_PARAMS}: ${issues.join('; ')}`);
}

// Domain errors carry a stable string code; the table gives its fixed JSON-RPC number.
const code: DomainErrorCode = 'session_not_found';
console.log(`${code} = ${DOMAIN_ERROR_CODES[code]}`);
