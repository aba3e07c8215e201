import {existsSync, readFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {checkContractFile, checkContractText} from '../../src/handoff/check-contract.ts';
import {runCli} from '../helpers/cli.ts';
import {makeContractRepo, type ContractRepo} from '../helpers/contract-repo.ts';

// Every shape people write contracts in (docs/contracts.md, "Every shape, one model"), three or
// more of each, written for this project: read into the one model, field by field.

/** Places test/fixtures/contracts/shapes/NAME in the repository, its BASE_REVISION made the repository's commit. */
const placeShape = (repo: ContractRepo, name: string) => repo.place(`shapes/${name}`, name);

const kindWarning = (why: string) => ({
	severity: 'warning',
	field: 'kind',
	message: `not written: read as a task (${why}); add kind: task to say so`,
});

describe('the Markdown guide: task, bug and transfer, prose stays prose', {timeout: 120_000}, () => {
	const repo = makeContractRepo();

	it('reads a task with a prose Context, Constraints and Out of scope', () => {
		const checked = checkContractFile(placeShape(repo, 'guide-task-rate-limit.md'));
		expect(checked).toMatchObject({isValid: true, shape: 'markdown', kind: 'task', problems: [], guesses: []});
		const contract = checked.contract!;
		expect(contract.title).toBe('Rate-limit password reset requests per account');
		expect(contract.kind === 'task' && contract.goal).toBe(
			'A single account can ask for at most five password reset emails an hour;\nthe sixth request is answered with 429 and sends nothing.',
		);
		expect(contract.context).toBe(
			'Reset requests are handled in `src/auth/reset.ts`, which already looks the\naccount up before it queues the email. There is a Redis client in\n`src/cache/`, used today only for session tokens. The mailer queue lives in\n`src/jobs/mailer.ts` and is shared with every other email.',
		);
		expect(contract.constraints).toEqual([
			'Keep the response time of an accepted request under 200 ms.',
			'Count per account, not per IP address: offices share one address.',
			'Use the existing Redis client; add no new dependency.',
		]);
		expect(contract.scope).toEqual({excluded: ['Rate limits on sign-in.', 'Changing the email template.']});
		// A bullet's lazy continuation line belongs to it.
		expect(contract.acceptance?.checks).toEqual([
			'`npm test -- reset` passes, with a new test that sends six requests and gets five 202s and one 429.',
			'The sixth request puts nothing on the mailer queue (the test counts queued jobs).',
			'`make check` exits 0.',
		]);
		expect(contract.acceptance?.acceptors).toBeUndefined();
	});

	it('reads a task with structured context, an acceptor and a guess to check first; a prose Out of scope is one item', () => {
		const checked = checkContractFile(placeShape(repo, 'guide-task-archive.md'));
		expect(checked).toMatchObject({isValid: true, shape: 'markdown', kind: 'task', problems: []});
		const contract = checked.contract!;
		expect(contract.context).toEqual({repository: '.', base_revision: repo.head});
		expect(contract.acceptance?.acceptors).toEqual({mara: {duty: 'product', lines: null}});
		expect(contract.scope?.excluded).toEqual(['Reviving archived projects, and any change to billing for archived ones.']);
		expect(checked.guesses).toEqual([
			{
				field: 'constraints[1]',
				text: 'The job runs in batches of at most 500 projects (guess: the planner chokes above that).',
			},
		]);
	});

	it('reads a bug: Problem, Reproduce, Expected, Hard to see', () => {
		const checked = checkContractFile(placeShape(repo, 'guide-bug-invoice-date.md'));
		expect(checked).toMatchObject({isValid: true, shape: 'markdown', kind: 'bug', problems: []});
		const contract = checked.contract!;
		if (contract.kind !== 'bug') throw new Error('not a bug');
		expect(contract.problem).toBe(
			"Invoices generated between 00:00 and 01:00 local time carry the previous\nday's date in their header.",
		);
		expect(contract.reproduce).toEqual([
			'Set the server clock to 00:30 Europe/Berlin.',
			'Generate an invoice for any order.',
			'The header shows the previous day.',
		]);
		expect(contract.expected).toBe('The header shows the local date at the moment the invoice was generated.');
		expect(contract.hard_to_see).toMatch(/^The invoice list page formats the date on the client/);
		expect(contract.context).toEqual({repository: '.', base_revision: repo.head});
	});

	it('reads a transfer: decisions written as prose stay prose, and an unmarked environment is a warning', () => {
		const checked = checkContractFile(placeShape(repo, 'guide-transfer-retry.md'));
		expect(checked).toMatchObject({isValid: true, shape: 'markdown', kind: 'transfer'});
		const contract = checked.contract!;
		if (contract.kind !== 'transfer') throw new Error('not a transfer');
		expect(contract.decisions).toEqual([
			'Full jitter over equal jitter: it spread the retries best in the load test.',
			'A cap of five minutes over no cap: an export nobody sees for an hour is worse than a failed one.',
		]);
		expect(contract.steps).toHaveLength(3);
		expect(contract.verification).toEqual([
			'`npm test -- retry` passes.',
			'In the staging logs, retries of one failure are spread over more than a minute.',
		]);
		expect(contract.gotchas).toHaveLength(2);
		expect(checked.problems).toEqual([
			{
				severity: 'warning',
				field: 'environment_specific',
				message: expect.stringMatching(/^not written: list what depends on the original environment/),
			},
		]);
	});
});

describe('the YAML template: read, and refused only for what it lacks', {timeout: 120_000}, () => {
	const repo = makeContractRepo();
	const TEACH_GOAL =
		'required for a task: the YAML template has no goal (its task: line is read as the title); add goal: what is true when the work is done, in a sentence or two';
	const TEACH_CHECKS =
		'required: acceptance is written as role → duty: read as acceptors; add the lines a person or a script can check under acceptance.checks';

	it.each([
		[
			'template-calendar-timezone.yaml',
			"Keep the event's time zone in the calendar export",
			{
				product_owner: {duty: 'Confirms that exported times match what users entered', lines: null},
				engineer: {duty: 'Reviews the writer change and its tests', lines: null},
			},
		],
		[
			'template-webhook-duplicates.yaml',
			'Stop sending a webhook twice when the first delivery times out late',
			{
				platform_lead: {duty: 'Decides whether at-most-once is the promise we make', lines: null},
				reviewer: {duty: 'Reads the diff and the regression test', lines: null},
			},
		],
		[
			'template-audit-pagination.yaml',
			'Page the audit log API instead of returning every row',
			{api_owner: {duty: 'Agrees the cursor format before it ships', lines: null}},
		],
	])(
		'%s: task: is the title, acceptance by role the acceptors; only goal and the checks are missing',
		(name, title, acceptors) => {
			const checked = checkContractFile(placeShape(repo, name));
			expect(checked.shape).toBe('template');
			expect(checked.kind).toBe('task');
			expect(checked.isValid).toBe(false);
			expect(checked.problems).toEqual([
				kindWarning('the template names its task on a task: line'),
				{severity: 'error', field: 'goal', message: TEACH_GOAL},
				{severity: 'error', field: 'acceptance.checks', message: TEACH_CHECKS},
			]);
			const canonical = checked.canonical!;
			expect(canonical['title']).toBe(title);
			expect(canonical['task']).toBeUndefined();
			expect(canonical['acceptance']).toEqual({acceptors});
			// Prose scope stays prose
			expect(typeof (canonical['scope'] as {allowed: unknown}).allowed).toBe('string');
			expect((canonical['context'] as {base_revision: string}).base_revision).toBe(repo.head);
		},
	);

	it('is valid once the goal and the lines are added, with nothing else changed', () => {
		const file = placeShape(repo, 'template-calendar-timezone.yaml');
		const text = readFileSync(file, 'utf8').replace(
			'acceptance:\n',
			'goal: An exported event keeps the time zone it was entered in\nacceptance:\n  checks:\n    - "`npm test -- ics` passes, with the Chicago fixture exported at 09:00 TZID=America/Chicago"\n',
		);
		const checked = checkContractText({text, name: file, baseDir: repo.dir});
		expect(checked.problems).toEqual([kindWarning('the template names its task on a task: line')]);
		expect(checked.isValid).toBe(true);
	});
});

describe('the portable five fields: outcome, scope, inputs, acceptance, stop_when', {timeout: 120_000}, () => {
	const repo = makeContractRepo();
	const PORTABLE = kindWarning('the portable five fields (outcome, scope, inputs, acceptance, stop_when) describe a task');

	it('reads outcome as the goal, inputs as the context (revision as base_revision), acceptance as the lines', () => {
		const checked = checkContractFile(placeShape(repo, 'portable-worker-count.yaml'));
		expect(checked).toMatchObject({isValid: true, shape: 'portable', kind: 'task', problems: [PORTABLE]});
		const contract = checked.contract!;
		expect(contract.kind === 'task' && contract.goal).toBe(
			'The service refuses to start when WORKER_COUNT is not a positive whole number',
		);
		expect(contract.context).toEqual({
			base_revision: repo.head,
			config_key: 'WORKER_COUNT',
			reproduction: 'start the service with WORKER_COUNT=-2; it starts and runs no jobs',
		});
		expect(contract.scope).toEqual({
			allowed: 'the config loader and its tests',
			excluded: 'deployment files, secrets handling, the job queue',
		});
		expect(contract.acceptance?.checks).toHaveLength(4);
		expect(contract.stop_when).toEqual([
			'the documented behaviour of WORKER_COUNT=0 says something else',
			'the change needs a production configuration update',
		]);
		// No title of its own: the goal's first line names the work where one is needed.
		expect(contract.title).toBeUndefined();
	});

	it('reads a prose scope as prose and every input as context', () => {
		const checked = checkContractFile(placeShape(repo, 'portable-csv-delimiter.yaml'));
		expect(checked).toMatchObject({isValid: true, shape: 'portable', kind: 'task', problems: [PORTABLE], guesses: []});
		const contract = checked.contract!;
		expect(contract.kind === 'task' && contract.goal).toBe('Importing a semicolon-separated CSV reads its columns correctly');
		expect(contract.context).toEqual({
			base_revision: repo.head,
			reproduction: 'import test/fixtures/semicolons.csv; every row lands in the first column',
			expected: 'five columns per row',
		});
		expect(contract.scope).toEqual({allowed: 'the CSV import parser and its tests', excluded: 'the import UI, exports'});
		expect(contract.acceptance?.checks).toEqual([
			'`npm test -- csv-import` passes, with a test importing the semicolon fixture',
			'comma-separated files import as they do today (the existing tests pass)',
		]);
		expect(contract.acceptance?.acceptors).toBeUndefined();
		expect(contract.stop_when).toEqual(['a file mixes commas and semicolons and the intended reading is unclear']);
		expect(contract.title).toBeUndefined();
	});

	it('reads a scope written as lists as lists', () => {
		const checked = checkContractFile(placeShape(repo, 'portable-empty-search.yaml'));
		expect(checked).toMatchObject({isValid: true, shape: 'portable', kind: 'task', problems: [PORTABLE], guesses: []});
		const contract = checked.contract!;
		expect(contract.kind === 'task' && contract.goal).toBe('An empty search box shows the recent items instead of an error page');
		expect(contract.context).toEqual({
			base_revision: repo.head,
			reproduction: 'submit the search form with nothing typed; a 500 page appears',
		});
		expect(contract.scope).toEqual({
			allowed: ['the search controller', 'its view', 'their tests'],
			excluded: ['the search index', 'ranking'],
		});
		expect(contract.acceptance?.checks).toEqual([
			'submitting an empty search answers 200 with the ten most recent items',
			'`make check` exits 0',
		]);
		expect(contract.stop_when).toEqual(['recent items need a new database index']);
	});

	it('names a field as written: a bad revision under inputs is inputs.revision', () => {
		const file = repo.write(
			'portable-bad.yaml',
			readFileSync(placeShape(repo, 'portable-empty-search.yaml'), 'utf8').replace(repo.head, 'f'.repeat(40)),
		);
		expect(checkContractFile(file).problems).toContainEqual({
			severity: 'error',
			field: 'inputs.revision',
			message: 'no such commit in the repository',
		});
	});
});

describe('the seven production fields', {timeout: 120_000}, () => {
	const repo = makeContractRepo();
	const PRODUCTION = kindWarning("its intent is a task's goal");
	const ALL = 'state,authority,evidence,guardrails,trace,escalation';

	it('reads intent as the goal and state beside the context; its provisional assumptions are checked first', () => {
		const checked = checkContractFile(placeShape(repo, 'production-refund-sync.yaml'));
		expect(checked).toMatchObject({isValid: true, shape: 'production', kind: 'task', problems: [PRODUCTION]});
		const contract = checked.contract!;
		expect(contract.kind === 'task' && contract.goal).toBe(
			"Refunds issued in the payment provider appear on the customer's order within five minutes",
		);
		expect(contract.state).toEqual({
			tried: ['polling the provider every minute (hit its rate limit at 600 orders)'],
			confirmed: ['the provider sends refund.created webhooks, signed'],
			provisional: ['webhooks arrive in order for one refund'],
		});
		expect(contract.authority?.needs_reapproval).toEqual(['package.json', 'git push']);
		expect(contract.evidence?.map(item => item.pointer)).toEqual([
			'package.json',
			repo.head,
			'https://example.com/provider/docs/webhooks#refund-created',
		]);
		expect(contract.guardrails?.tripwires).toEqual(['make check']);
		expect(contract.trace).toEqual({trace_id: '0af7651916cd43dd8448eb211c80319c', parent_span: 'b7ad6b7169203331'});
		expect(checked.guesses).toEqual([{field: 'state.provisional[0]', text: 'webhooks arrive in order for one refund'}]);
	});

	it('reads prose context and a prose escalation plan', () => {
		const checked = checkContractFile(placeShape(repo, 'production-log-rotation.yaml'));
		expect(checked).toMatchObject({isValid: true, shape: 'production', problems: [PRODUCTION]});
		expect(checked.contract?.context).toMatch(/^Logs are written by the ingest service/);
		expect(checked.contract?.escalation).toBe('stop and ask in the ops channel if rotation needs a new volume');
		expect(checked.contract?.state).toEqual({
			tried: ['a cron job running logrotate, which the container image does not have'],
			confirmed: ['the appender supports a rolling policy'],
		});
	});

	it('reads the long names (state_snapshot, authority_envelope, evidence_bundle, ...) as the same fields, named as written', () => {
		const checked = checkContractFile(placeShape(repo, 'production-cache-key.yaml'));
		expect(checked).toMatchObject({isValid: true, shape: 'production', problems: [PRODUCTION]});
		const contract = checked.contract!;
		expect(contract.state).toEqual({
			tried: ['purging the cache by hand after each incident'],
			provisional: ['only the product page caches prices'],
		});
		expect(contract.authority?.may_write).toEqual(['src/cache/keys.ts', 'test/cache/']);
		expect(contract.evidence).toHaveLength(2);
		expect(contract.guardrails?.tripwires).toEqual(['make check']);
		expect(contract.trace?.parent_span).toBe('eee19b7ec3c1b174');
		expect(contract.escalation).toEqual({
			contradiction: 'stop and say which pages cache prices',
			low_confidence: 'raise a need before changing the key format',
		});
	});

	it('passes a receiver that requires every production field: its pointers resolve, its tripwire is defined', () => {
		const result = runCli(['contract', 'check', placeShape(repo, 'production-refund-sync.yaml'), '--require', ALL]);
		expect(result.stdout).toMatch(/: valid task contract, read as the seven production fields \(1 warning\)\n/);
		expect(result.status).toBe(0);
	});

	it('is refused by a receiver that requires state when it says no base revision the state was taken at', () => {
		const result = runCli(['contract', 'check', placeShape(repo, 'production-log-rotation.yaml'), '--require', ALL]);
		expect(result.status).toBe(1);
		expect(result.stdout).toMatch(
			/^error +context\.base_revision: required by the receiver's policy \(state\): the commit the state was taken at, so a stale one can be told$/m,
		);
		expect(result.stdout).toMatch(/: 1 error, 1 warning\n/);
	});

	it('says which escalation cases a plan leaves out, and where a long name was written', () => {
		const result = runCli(['contract', 'check', placeShape(repo, 'production-cache-key.yaml'), '--require', ALL]);
		expect(result.status).toBe(0);
		expect(result.stdout).toMatch(/^warning escalation_plan: says nothing for partial_success, expired_approval: /m);
	});
});

describe('contract check and normalize, as a person runs them', {timeout: 120_000}, () => {
	const repo = makeContractRepo();

	it('a Markdown task with a prose Context and Constraints: exit 0; --json shows context as text and constraints as a list', () => {
		const file = placeShape(repo, 'guide-task-rate-limit.md');
		const text = runCli(['contract', 'check', file]);
		expect(text.stdout).toBe(`${file}: valid task contract, read as the Markdown guide\n`);
		expect(text.status).toBe(0);
		const json = runCli(['contract', 'check', file, '--json']);
		expect(json.status).toBe(0);
		const verdict = JSON.parse(json.stdout) as {shape: string; contract: {context: unknown; constraints: unknown}};
		expect(verdict.shape).toBe('markdown');
		expect(typeof verdict.contract.context).toBe('string');
		expect(verdict.contract.constraints).toEqual([
			'Keep the response time of an accepted request under 200 ms.',
			'Count per account, not per IP address: offices share one address.',
			'Use the existing Redis client; add no new dependency.',
		]);
	});

	it('normalize writes NAME.canonical.yaml beside the file, keeps the original, and the written form reads back the same', () => {
		for (const name of ['guide-task-archive.md', 'portable-worker-count.yaml', 'production-cache-key.yaml']) {
			const file = placeShape(repo, name);
			const original = readFileSync(file, 'utf8');
			const result = runCli(['contract', 'normalize', file]);
			expect(result.status, result.stdout).toBe(0);
			const written = join(repo.dir, name.replace(/\.(md|yaml)$/, '.canonical.yaml'));
			expect(result.stdout.split('\n')[0]).toBe(`wrote ${written}`);
			expect(readFileSync(file, 'utf8')).toBe(original);
			const again = checkContractFile(written);
			expect(again.shape).toBe('canonical');
			expect(again.problems).toEqual([]);
			expect(again.contract).toEqual(checkContractFile(file).contract);
			// Never over a file that is there
			const twice = runCli(['contract', 'normalize', file]);
			expect(twice.status).toBe(1);
			expect(twice.stderr).toBe(`controlroom: contract normalize: ${written} exists; --force replaces it\n`);
		}
	});

	it('normalize writes an invalid contract too (how it was read) and exits 1', () => {
		const file = placeShape(repo, 'template-webhook-duplicates.yaml');
		const result = runCli(['contract', 'normalize', file]);
		expect(result.status).toBe(1);
		const written = readFileSync(join(repo.dir, 'template-webhook-duplicates.canonical.yaml'), 'utf8');
		expect(written).toContain('title: Stop sending a webhook twice when the first delivery times out late\n');
		expect(written).toContain('    platform_lead:\n      duty: Decides whether at-most-once is the promise we make\n');
		expect(result.stdout).toMatch(/^error +goal: required for a task: the YAML template has no goal/m);
	});

	it('never shows a credential in the canonical form (--json, normalize)', () => {
		const file = repo.place('refused/credential-in-context.md', 'credential-in-context.md');
		const json = runCli(['contract', 'check', file, '--json']);
		expect(json.status).toBe(1);
		expect(json.stdout).not.toContain('Zq7Lm2Nx8');
		const text = runCli(['contract', 'check', file]);
		expect(text.stdout).toContain(
			'\nerror   context.bucket_token: looks like a credential (GitHub token); remove it, the value is not shown\n',
		);
		expect(text.stdout).not.toContain('Zq7Lm2Nx8');
		expect((JSON.parse(json.stdout) as {contract: {context: unknown}}).contract.context).toEqual({
			repository: '.',
			bucket_token: '(withheld: looks like a credential)',
		});
		expect(runCli(['contract', 'normalize', file]).status).toBe(1);
		expect(readFileSync(join(repo.dir, 'credential-in-context.canonical.yaml'), 'utf8')).not.toContain('Zq7Lm2Nx8');
		expect(existsSync(file)).toBe(true);
	});
});
