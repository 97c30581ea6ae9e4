/**
 * The UI stays true while OTHER processes write (issue "The UI goes stale when anything else
 * writes"): a real `recall serve` and Chromium on one home, and on the same home, as real child
 * processes, `recall mv` (the open conversation changes project), `recall import` (a new project,
 * a new conversation and a message appended to the open conversation) and another process that
 * rewinds the open conversation through the store (a change that flips only `messages.visibility`,
 * which the gateway used to miss). After each, without a reload and within bounded waits, the
 * sidebar groups, the conversation header, the search scope and the search results follow.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, assert, beforeAll, describe, it } from 'vitest';
import { DESKTOP, launchBrowser, openPage, type AppPage } from './support/browser.js';
import { Cleanup } from './support/cleanup.js';
import { startRecallServer, tempDir, type RecallServer } from './support/gateway.js';
import { CLI_PATH, REPO_ROOT } from './support/paths.js';
import type { Project, Session } from './support/rpc.js';
import { convRow, group, messageWithText, openApp, renderedHits, searchInPanel, searchPanel, shownProject, sidebar, waitForOpenSession } from './support/ui.js';
import { eventually } from './support/wait.js';

const CHILD_TIMEOUT_MS = 30_000;
/** The gateway polls every 500 ms and the UI debounces its refresh; 10 s is far beyond both. */
const FOLLOW_MS = 10_000;

/** Runs `node args…` from `cwd` to completion (bounded), returning its exit code and output. */
function runNode(args: string[], cwd = REPO_ROOT): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(RECALL_|OPENAI_)/.test(k)) env[k] = v;
    const child = spawn(process.execPath, args, { cwd, env: { ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${args[0]} did not finish within ${CHILD_TIMEOUT_MS} ms. stderr:\n${stderr}`));
    }, CHILD_TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const recall = (args: string[]) => runNode([CLI_PATH, ...args]);

/**
 * Another process that writes through the store itself (as an agent host or an older tool would):
 * rewinds a session to its first message. Run from packages/gateway-rpc so the workspace packages resolve.
 */
const REWIND_SCRIPT = `
import { openDatabase, profileDatabasePath } from '@recall/schema';
import { getMessages, rewindSession } from '@recall/store';
const [home, sessionId] = process.argv.slice(-2);
const db = openDatabase(profileDatabasePath(home, 'default'));
const first = getMessages(db, sessionId)[0];
console.log(rewindSession(db, sessionId, first.id));
db.close();
`;

describe('writes by other processes reach the open UI without a reload', () => {
  const cleanup = new Cleanup();
  let server: RecallServer;
  let browser: Browser;
  let app: AppPage;
  let alpha: Project;
  let beta: Project;
  let open: Session;
  let other: Session;

  beforeAll(async () => {
    server = await startRecallServer(cleanup);
    browser = await launchBrowser(cleanup);
    app = await openPage(browser, cleanup, DESKTOP);
    alpha = await server.rpc.call<Project>('projects.create', { name: 'Alpha' });
    beta = await server.rpc.call<Project>('projects.create', { name: 'Beta' });
    open = await server.rpc.call<Session>('session.create', {
      projectId: alpha.id,
      title: 'Deploy runbook',
      messages: [
        { role: 'user', content: 'Deploy runbook: canary first, then the whole fleet.' },
        { role: 'assistant', content: 'Noted: the rollback switch is called kestrel-lever.' },
      ],
    });
    other = await server.rpc.call<Session>('session.create', { projectId: alpha.id, title: 'Alpha buckets', messages: [{ role: 'user', content: 'The canary bucket of alpha is named heron.' }] });
    await server.rpc.call<Session>('session.create', { projectId: beta.id, title: 'Beta buckets', messages: [{ role: 'user', content: 'The canary bucket of beta is named osprey.' }] });
    await openApp(app.page, server.url, `#/s/${open.id}`);
    await waitForOpenSession(app.page, open.id);
  });

  afterAll(async () => {
    await cleanup.run();
  });

  it('starts in Alpha, searching Alpha', async () => {
    const { page } = app;
    assert.equal(await shownProject(page), 'Alpha');
    assert.equal(await searchPanel(page).getByTestId('search-scope').textContent(), 'Alpha');
    const { hits } = await searchInPanel(page, 'canary bucket', 'keyword');
    assert.deepEqual(hits.map((h) => h.sessionId), [other.id], "Alpha's other conversation only");
  });

  it('`recall mv` from a shell moves the open conversation: sidebar, header and search scope follow', async () => {
    const { page } = app;
    const moved = await recall(['mv', open.id, beta.slug, '--home', server.home]);
    assert.equal(moved.code, 0, moved.stderr);
    await eventually(
      'the sidebar, header and search scope to show Beta',
      async () => {
        assert.equal(await group(page, beta.id).locator(convRow(page, open.id)).count(), 1, 'listed in Beta');
        assert.equal(await group(page, alpha.id).locator(convRow(page, open.id)).count(), 0, 'gone from Alpha');
        assert.equal(await shownProject(page), 'Beta');
        assert.equal(await searchPanel(page).getByTestId('search-scope').textContent(), 'Beta');
      },
      { timeoutMs: FOLLOW_MS },
    );
    // The earlier answer leaves the screen: the search runs again in the new scope by itself (issue 20).
    const betaBuckets = (await server.rpc.sessions(beta.id)).find((s) => s.title === 'Beta buckets')!.id;
    await eventually(
      'the search to follow the move',
      async () => {
        assert.deepEqual((await renderedHits(page)).map((h) => h.sessionId), [betaBuckets]);
        assert.notInclude((await searchPanel(page).textContent()) ?? '', 'heron', 'nothing of Alpha on screen');
      },
      { timeoutMs: FOLLOW_MS },
    );
    const { hits, result } = await searchInPanel(page, 'canary bucket', 'keyword');
    assert.deepEqual(hits.map((h) => h.sessionId), [betaBuckets]);
    assert.notInclude(JSON.stringify(result), 'heron', 'nothing of Alpha in the new scope');
    assert.equal(await page.locator('.live.live-open').count(), 1, 'the event socket stayed live');
  });

  it('a second `recall mv` with nothing else written since moves it back: every group involved is re-read', async () => {
    // The first external write also folded in the gateway's own earlier writes (their id-less
    // messages.changed refreshed everything), so only a write after it shows what a plain move
    // announces: an id-less sessions.changed must refresh every group, not just "No project".
    const { page } = app;
    const back = await recall(['mv', open.id, alpha.slug, '--home', server.home]);
    assert.equal(back.code, 0, back.stderr);
    await eventually(
      'the sidebar, header and search scope to show Alpha again',
      async () => {
        assert.equal(await group(page, alpha.id).locator(convRow(page, open.id)).count(), 1, 'listed in Alpha');
        assert.equal(await group(page, beta.id).locator(convRow(page, open.id)).count(), 0, 'gone from Beta');
        assert.equal(await shownProject(page), 'Alpha');
        assert.equal(await searchPanel(page).getByTestId('search-scope').textContent(), 'Alpha');
      },
      { timeoutMs: FOLLOW_MS },
    );
  });

  it('`recall import` from a shell: a new project and conversation appear, and a message lands in the open conversation', async () => {
    const { page } = app;
    const dir = await tempDir(cleanup, 'recall-e2e-import-');
    const file = join(dir, 'more.jsonl');
    await writeFile(
      file,
      [
        { kind: 'project', id: 'p_gamma', name: 'Gamma' },
        { kind: 'session', id: 'gamma-notes', project_id: 'p_gamma', title: 'Gamma notes' },
        { kind: 'message', session_id: 'gamma-notes', external_id: 'g1', role: 'user', content: 'Gamma keeps its buckets elsewhere.' },
        { kind: 'message', session_id: open.id, external_id: 'late-1', role: 'assistant', content: 'Imported later: the canary bucket of this runbook is wren.' },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const imported = await recall(['import', file, '--home', server.home]);
    assert.equal(imported.code, 0, imported.stderr);
    await eventually(
      'the Gamma group, its conversation and the appended message to show',
      async () => {
        assert.equal(await sidebar(page).getByRole('region', { name: 'Project Gamma', exact: true }).count(), 1, 'Gamma group');
        assert.equal(await group(page, 'p_gamma').locator(convRow(page, 'gamma-notes')).count(), 1, 'its conversation');
        assert.equal(await messageWithText(page, 'the canary bucket of this runbook is wren').count(), 1, 'appended to the open conversation');
      },
      { timeoutMs: FOLLOW_MS },
    );
  });

  it('a rewind by another process (only message visibility changes) hides the rewound turns', async () => {
    const { page } = app;
    assert.equal(await messageWithText(page, 'kestrel-lever').count(), 1);
    const rewound = await runNode(['--input-type=module', '-e', REWIND_SCRIPT, server.home, open.id], join(REPO_ROOT, 'packages/gateway-rpc'));
    assert.equal(rewound.code, 0, rewound.stderr);
    assert.equal(rewound.stdout.trim(), '2', 'the assistant reply and the imported message were rewound');
    await eventually(
      'the rewound messages to leave the open conversation',
      async () => {
        assert.equal(await messageWithText(page, 'kestrel-lever').count(), 0);
        assert.equal(await messageWithText(page, 'runbook is wren').count(), 0);
        assert.equal(await messageWithText(page, 'canary first, then the whole fleet').count(), 1, 'the kept message stays');
      },
      { timeoutMs: FOLLOW_MS },
    );
    app.assertNoProblems();
  });
});
