import { createRedactor, redact, RedactionPatternError } from '@recall/redaction';

// Built-in rules: a fake GitHub token, a .env line and a <private> span.
const pasted = ['token ghp_' + 'A1b2C3d4E5'.repeat(3) + 'x9Y8z7', 'DB_PASSWORD=correct-horse', 'my <private>home address</private> is secret'].join('\n');
const result = redact(pasted);
console.log(result.text);
console.log(result.counts);

// A compiled pass with an extra pattern and an allow-list entry.
const redactor = createRedactor({
  extraPatterns: [{ name: 'ticket_secret', pattern: 'TS-(?<secret>[0-9]{8})' }],
  allow: ['AKIAIOSFODNN7EXAMPLE'],
});
console.log(redactor.redactText('AWS docs use AKIAIOSFODNN7EXAMPLE; ticket TS-12345678'));

// Patterns that could backtrack catastrophically are refused.
try {
  createRedactor({ extraPatterns: [{ name: 'slow', pattern: '(a+)+$' }] });
} catch (error) {
  if (error instanceof RedactionPatternError) console.log(error.code);
}
