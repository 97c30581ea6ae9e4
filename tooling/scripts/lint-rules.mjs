// Project rules that no off-the-shelf linter checks for us, run by `pnpm lint` next to
// `turbo boundaries`: config is read in one place (process.env only in apps/cli/src/config.ts, the composition root),
// tests never mock modules, package entry points use explicit named exports, and SQLite is opened
// only by packages/schema's openDatabase().
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const files = execSync('git ls-files -co --exclude-standard -- "*.ts" "*.tsx" "*.mjs"', { encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !f.includes('node_modules/') && !f.includes('/dist/'));

const problems = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue;
  }
  // Comments may mention what the rules forbid; only code counts.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const isTest = /(^|\/)test\//.test(file) || file.startsWith('tests-e2e/');
  if (/\bvi\.mock\(|\bjest\.mock\(/.test(code)) problems.push(`${file}: module mocking (vi.mock) is not allowed; use real SQLite files and loopback servers`);
  if (file.endsWith('src/index.ts') && /^export \* from/m.test(code)) problems.push(`${file}: use explicit named exports, not "export *"`);
  if (!isTest && (file.startsWith('packages/') || file.startsWith('apps/cli/')) && file.includes('/src/') && /process\.env\b/.test(code) && file !== 'apps/cli/src/config.ts') {
    problems.push(`${file}: process.env is read only in apps/cli/src/config.ts`);
  }
  if (!isTest && file.includes('/src/') && !file.startsWith('packages/schema/') && /new Database\(/.test(code)) {
    problems.push(`${file}: open SQLite through openDatabase() from @recall/schema`);
  }
}
if (problems.length > 0) {
  console.error(`lint-rules: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`lint-rules: ${files.length} files checked, no problems`);
