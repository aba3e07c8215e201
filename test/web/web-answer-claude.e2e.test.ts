import type {ChildProcess} from 'node:child_process';
import {existsSync} from 'node:fs';
import {join} from 'node:path';
import type {Browser} from 'playwright-core';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {endStarted, question, startHeld, toolResults} from '../helpers/held-runs.ts';
import {realClientBox} from '../helpers/realclients.ts';
import {launchBrowser, signedInPage, startWeb, type WebServed} from '../helpers/web.ts';

// A real `claude -p` (Claude Code 2.1.328, offline) held on `rm -rf build` (docs/headless-holds.md),
// answered from the web board in headless Chromium: the question shows within 2 s, allow resumes the
// same session and build/ goes, once; a changed hash and a second tab's answer are refused.

const SLOW = 240_000;
/** The held call, its description written as markup: the page shows it as text. */
const RM_BUILD_MARKUP = {
	tool: 'Bash',
	input: {command: 'rm -rf build', description: '<script>window.pwned=4</script>Remove build'},
};

const started: ChildProcess[] = [];
let browser: Browser;
let served: WebServed | undefined;
beforeAll(async () => {
	browser = await launchBrowser();
});
afterAll(async () => {
	await browser?.close();
});
afterEach(async () => {
	endStarted(started);
	await served?.stop();
	served = undefined;
});

describe('answering a held claude -p from the web board (real Claude Code)', () => {
	it(
		'shows the question within 2 s; allow from the page resumes the same session, build/ removed once; a changed hash and a second tab are refused',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			served = await startWeb(box.env);
			const page = await signedInPage(browser, box.env, {width: 1280, height: 800});
			const run = startHeld(box, [RM_BUILD_MARKUP, {text: 'cleaned'}], started);
			const id = await question(run);
			const asked = Date.now();
			await page.waitForSelector(`a.decision[data-decision="${id}"]`, {timeout: 2000});
			const shownWithin = Date.now() - asked;
			expect(shownWithin).toBeLessThan(2000);
			expect(existsSync(join(box.dir, 'project', 'build', 'f'))).toBe(true);
			// Two tabs of the same session on the question's page.
			await page.click(`a.decision[data-decision="${id}"]`);
			await page.waitForURL(url => url.pathname === `/decision/${id}`);
			expect(await page.locator('[data-panel="question"]').innerText()).toContain('<script>window.pwned=4</script>');
			expect(await page.evaluate('window.pwned')).toBeUndefined();
			const second = await page.context().newPage();
			await second.goto(new URL(`/decision/${id}`, served.base).href);
			// A form whose hash is not the question's (the call changed between showing and answering): refused.
			await second.evaluate("document.querySelectorAll('input[name=hash]').forEach(input => { input.value = '0'.repeat(64); })");
			await second.getByRole('button', {name: 'Allow this call once'}).click();
			expect(await second.locator('body').innerText()).toContain("arguments' hash differs");
			await second.goBack();
			await page.getByRole('button', {name: 'Allow this call once'}).click();
			expect(await page.locator('body').innerText()).toContain(`allowed ${id}`);
			// The second tab, still showing the question, answers the same item with the right hash: already answered.
			await second.evaluate(
				"document.querySelectorAll('input[name=hash]').forEach(input => { input.value = input.defaultValue; })",
			);
			await second.getByRole('button', {name: 'Allow this call once'}).click();
			expect(await second.locator('body').innerText()).toContain('already answered allow');
			expect(await run.done, run.stderr()).toBe(0);
			expect(existsSync(join(box.dir, 'project', 'build'))).toBe(false);
			expect(existsSync(join(box.dir, 'project', 'keep.txt'))).toBe(true);
			expect(toolResults(box.dir)).toEqual(['(Bash completed with no output)']);
			// The answer is recorded as given on the web, by the person who signed in.
			const events = JSON.parse(box.cli(['timeline', run.stderr().match(/task (w-[0-9a-f]+)/)?.[1] ?? '', '--json']).stdout) as {
				entries: {type?: string; source?: string; data?: {by?: string}}[];
			};
			const answered = events.entries.find(entry => entry.type === 'decision.answered');
			expect(answered?.source).toBe('web');
			console.log(`question shown on the page ${shownWithin} ms after the run asked it`);
			await second.close();
			await page.close();
		},
		SLOW,
	);
});
