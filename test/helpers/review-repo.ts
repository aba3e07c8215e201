import {execFileSync, spawnSync} from 'node:child_process';
import {mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {EventType, type EventOfType, type EventTypeName} from '../../src/core/events.ts';
import type {Task} from '../../src/core/task.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, scratchDir} from './cli.ts';
import {runAsPerson} from './person.ts';

/** The worker the review tests run through the real wrapper (test/fixtures/review/worker.sh). */
export const REVIEW_WORKER = fileURLToPath(new URL('../fixtures/review/worker.sh', import.meta.url));

/** A git repository with one commit, a home and ledger beside it, and a folder the worker reports into. */
export type ReviewRepo = {
	readonly repo: string;
	readonly home: string;
	readonly ledger: string;
	/** Where the worker writes the fixes and brief it was given ($REVIEW_TEST_OUT). */
	readonly out: string;
	readonly env: NodeJS.ProcessEnv;
	/** Runs the worker through `controlroom run` in the repository; returns its task id. */
	runWorker(title: string, extraEnv?: NodeJS.ProcessEnv): string;
	/** Runs `controlroom ARGS` against this ledger to completion. */
	cli(args: readonly string[], extraEnv?: NodeJS.ProcessEnv): {status: number | null; stdout: string; stderr: string};
	/** The same, as a person at a terminal (test/helpers/person.ts): what review, send-back, accept and ack need. */
	asPerson(args: readonly string[], extraEnv?: NodeJS.ProcessEnv): {status: number | null; stdout: string; stderr: string};
	/** Every event of the given types, any task, oldest first. */
	events<T extends EventTypeName>(types: readonly T[]): EventOfType<T>[];
	task(id: string): Task | undefined;
	tasks(): Task[];
};

function git(dir: string, ...args: string[]): void {
	execFileSync('git', ['-C', dir, '-c', 'user.email=test@example.com', '-c', 'user.name=test', ...args], {stdio: 'ignore'});
}

/** A scratch repository and ledger for one review test. */
export function makeReviewRepo(): ReviewRepo {
	const root = scratchDir('cr-review-');
	const repo = join(root, 'repo');
	const home = join(root, 'home');
	const out = join(root, 'out');
	for (const dir of [join(repo, 'src'), join(repo, 'test'), home, out]) mkdirSync(dir, {recursive: true});
	writeFileSync(join(repo, 'src', 'app.txt'), 'the app\n');
	writeFileSync(join(repo, 'test', 'app.test.txt'), 'the app test\n');
	git(repo, 'init', '-q');
	git(repo, 'add', '.');
	git(repo, 'commit', '-qm', 'start');
	const ledger = join(home, 'ledger.db');
	const env = {...process.env, CONTROLROOM_HOME: home, REVIEW_TEST_OUT: out};
	const cli: ReviewRepo['cli'] = (args, extraEnv = {}) => {
		const result = spawnSync(process.execPath, [BIN, ...args, '--ledger', ledger], {
			encoding: 'utf8',
			env: {...env, ...extraEnv},
			cwd: root,
			maxBuffer: 64 * 1024 * 1024,
		});
		return {status: result.status, stdout: result.stdout, stderr: result.stderr};
	};
	const asPerson: ReviewRepo['asPerson'] = (args, extraEnv = {}) =>
		runAsPerson([...args, '--ledger', ledger], {env: {...env, ...extraEnv}, cwd: root});
	const read = <T>(fn: (reader: ReturnType<typeof openLedger>['reader']) => T): T => {
		const open = openLedger(ledger);
		try {
			return fn(open.reader);
		} finally {
			open.close();
		}
	};
	return {
		repo,
		home,
		ledger,
		out,
		env,
		cli,
		asPerson,
		runWorker(title, extraEnv = {}) {
			const run = cli(['run', '--cwd', repo, '--title', title, '--', 'sh', REVIEW_WORKER], extraEnv);
			const task = read(reader => reader.tasksForView(null).find(candidate => candidate.title === title));
			if (!task) throw new Error(`the worker left no task: ${run.stderr}`);
			return task.id;
		},
		events: types => read(reader => reader.eventsOfType(types)),
		task: id => read(reader => reader.task(id)),
		tasks: () => read(reader => reader.tasksForView(null)),
	};
}

/** The review events of one task, in order, by type name. */
export const REVIEW_EVENT_TYPES = [
	EventType.reviewStarted,
	EventType.reviewPacketBuilt,
	EventType.reviewVerdict,
	EventType.reviewFixRound,
	EventType.reviewConcluded,
] as const;
