import {spawn, type ChildProcess} from 'node:child_process';
import {createHash} from 'node:crypto';
import {closeSync, existsSync, ftruncateSync, openSync, readFileSync, realpathSync, writeSync} from 'node:fs';
import {createRequire} from 'node:module';
import {basename, dirname, join, resolve} from 'node:path';
import {builtInOf} from '../core/settings.ts';
import {makePrivateDir, PRIVATE_FILE_MODE} from '../ledger/private-files.ts';
import {gitCommonDir} from './worktree.ts';

/** Slots per repository unless `--slots`, CONTROLROOM_SLOTS or the config file says otherwise (docs/config.md). */
export const DEFAULT_SLOTS = builtInOf('slots');
const MAX_SLOTS = 64;

type FlockFlag = 'ex' | 'exnb' | 'un';
type FsExt = {flockSync(fd: number, flag: FlockFlag): void};
const require = createRequire(import.meta.url);
// fs-ext-extra-prebuilt: fs-ext's fork that ships its binaries for Linux, macOS and Windows (x64,
// arm64; Node 20-25) inside the npm package, so the kernel lock needs no compiler
// (docs/install.md). Loaded here only.
let fsExt: FsExt | undefined;

function flockSync(fd: number, flag: FlockFlag): void {
	fsExt ??= require('fs-ext-extra-prebuilt') as FsExt;
	fsExt.flockSync(fd, flag);
}

/** Takes an exclusive flock without blocking; false when another open file holds it. */
function tryLock(fd: number): boolean {
	try {
		flockSync(fd, 'exnb');
		return true;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return false;
		throw error;
	}
}

/**
 * Whose slots a folder takes: its repository, named by the shared git directory (`git rev-parse
 * --git-common-dir`), so every worktree of one repository shares one pool. The main checkout names
 * it when the shared directory is its `.git` (the same lock root as a plain checkout had); a bare
 * repository or a submodule by the shared directory itself. Where git cannot say (not installed,
 * not a repository to it), the nearest folder above holding `.git`, else the folder itself.
 */
export function checkoutRoot(dir: string): string {
	const commonDir = gitCommonDir(dir);
	if (commonDir !== null) return basename(commonDir) === '.git' ? dirname(commonDir) : commonDir;
	return nearestCheckout(dir);
}

/** The nearest folder at or above `dir` holding `.git` (file or folder), after realpath; else `dir` itself. */
function nearestCheckout(dir: string): string {
	const start = realpathSync(resolve(dir));
	for (let current = start; ; current = dirname(current)) {
		if (existsSync(join(current, '.git'))) return current;
		if (dirname(current) === current) return start;
	}
}

/** Where a checkout's lock files live: `$CONTROLROOM_HOME/locks/<sha256 of the path, 16 hex>/`. */
export function lockRootFor(checkout: string, home: string): string {
	return join(home, 'locks', createHash('sha256').update(checkout).digest('hex').slice(0, 16));
}

/** Who holds a slot, as its holder wrote it into the slot file (a label only: the flock decides). */
export type SlotHolder = {
	readonly slot: number;
	readonly pid: number | null;
	readonly taskId: string | null;
	readonly title: string | null;
};

/** Every slot is held and the run was told not to wait. */
export class NoSlotError extends Error {
	readonly holders: readonly SlotHolder[];
	constructor(checkout: string, slots: number, holders: readonly SlotHolder[], isQueued: boolean) {
		const names = holders.map(holder => describeHolder(holder)).join(', ');
		super(
			`no free slot in ${checkout}: ${holders.length} of ${slots} held by ${names || 'unknown holders'}` +
				`${isQueued ? ' (and a run is waiting)' : ''}; not waiting (--no-wait)`,
		);
		this.name = 'NoSlotError';
		this.holders = holders;
	}
}

function describeHolder(holder: SlotHolder): string {
	const who = holder.taskId ?? 'a run';
	const title = holder.title ? ` "${holder.title}"` : '';
	return `${who}${title} (pid ${holder.pid ?? 'unknown'})`;
}

function readHolder(file: string, slot: number): SlotHolder {
	try {
		const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
		return {
			slot,
			pid: typeof parsed['pid'] === 'number' ? parsed['pid'] : null,
			taskId: typeof parsed['taskId'] === 'string' ? parsed['taskId'] : null,
			title: typeof parsed['title'] === 'string' ? parsed['title'] : null,
		};
	} catch {
		return {slot, pid: null, taskId: null, title: null};
	}
}

/** A slot held by this process until `release()` or until the kernel closes the file at exit. */
export type SlotLease = {
	readonly slot: number;
	readonly root: string;
	/** Writes who holds the slot into its file, for the `--no-wait` message of other runs. */
	label(holder: {taskId: string | null; title: string | null}): void;
	release(): void;
};

/** The `flock` helper that waits in the kernel on a descriptor it shares with us (fd 3). */
function blockingLockHelper(fd: number): ChildProcess {
	const stdio: ['ignore', 'ignore', 'ignore', number] = ['ignore', 'ignore', 'ignore', fd];
	if (existsSync('/usr/bin/flock')) return spawn('/usr/bin/flock', ['--exclusive', '3'], {stdio});
	const script = `require(${JSON.stringify(require.resolve('fs-ext-extra-prebuilt'))}).flockSync(3, 'ex')`;
	return spawn(process.execPath, ['-e', script], {stdio});
}

/**
 * Waits, blocked in the kernel, until one of `fds` is locked; returns its index. Each wait runs in
 * a small helper process that shares the open file with us: flock locks belong to the open file,
 * so the lock the helper takes stays ours after it exits. No sleeps, no polling: the kernel wakes
 * a helper when a holder closes its file or dies.
 */
export async function waitForAnyLock(fds: readonly number[], abort?: AbortSignal): Promise<number> {
	const helpers = fds.map(blockingLockHelper);
	const exits = helpers.map(
		helper => new Promise<number | null>(done => helper.once('exit', code => done(code)).once('error', () => done(null))),
	);
	const winner = await new Promise<number>((done, fail) => {
		let isSettled = false;
		const onAbort = (): void => {
			if (isSettled) return;
			isSettled = true;
			fail(new Error('aborted while waiting for a slot'));
		};
		abort?.addEventListener('abort', onAbort, {once: true});
		exits.forEach(
			(exit, index) =>
				void exit.then(code => {
					if (isSettled || code !== 0) return;
					isSettled = true;
					abort?.removeEventListener('abort', onAbort);
					done(index);
				}),
		);
		if (abort?.aborted) onAbort();
	}).finally(() => {
		for (const helper of helpers) if (helper.exitCode === null && helper.signalCode === null) helper.kill('SIGKILL');
	});
	await Promise.all(exits);
	return winner;
}

/** An exclusive kernel lock held by this process until `release()`, or until it exits. */
export type HeldLock = {release(): void};

/** The lock on an open file: closing the file releases it (once). */
function heldLock(fd: number): HeldLock {
	let isHeld = true;
	return {
		release() {
			if (!isHeld) return;
			isHeld = false;
			closeSync(fd);
		},
	};
}

/**
 * Takes an exclusive flock on `file` (created owner-only): at once when it is free, else after
 * `onWait` is told, blocked in the kernel (the same helper admission slots wait with) until the
 * holder releases it or dies. Another process asking for the same file waits its turn.
 */
export async function holdLock(file: string, onWait?: () => void): Promise<HeldLock> {
	makePrivateDir(dirname(file));
	const fd = openSync(file, 'a+', PRIVATE_FILE_MODE);
	try {
		if (!tryLock(fd)) {
			onWait?.();
			await waitForAnyLock([fd]);
		}
	} catch (error) {
		closeSync(fd);
		throw error;
	}
	return heldLock(fd);
}

/** Who holds a labelled lock, as its holder wrote it: "sync (pid 123, since 2026-12-02T05:00:00.000Z)". */
function describeLabel(file: string): string {
	try {
		const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
		const who = typeof parsed['holder'] === 'string' ? parsed['holder'] : 'another process';
		const pid = typeof parsed['pid'] === 'number' ? `pid ${parsed['pid']}` : 'pid unknown';
		return typeof parsed['since'] === 'string' ? `${who} (${pid}, since ${parsed['since']})` : `${who} (${pid})`;
	} catch {
		return 'another process';
	}
}

/**
 * An exclusive flock on `file` whose file names its holder (`holder`, this pid, since when), so
 * another process asking for it can say who has it. With `wait: false`, a lock held elsewhere gives who holds it;
 * else `onWait` is told who holds it and the wait is blocked in the kernel until the holder
 * releases it or dies, or `abort` fires (then it throws).
 */
export async function holdLabelledLock(
	file: string,
	holder: string,
	options: {readonly wait: boolean; readonly onWait?: (heldBy: string) => void; readonly abort?: AbortSignal},
): Promise<HeldLock | {readonly heldBy: string}> {
	makePrivateDir(dirname(file));
	const fd = openSync(file, 'a+', PRIVATE_FILE_MODE);
	try {
		if (!tryLock(fd)) {
			if (!options.wait) {
				const heldBy = describeLabel(file);
				closeSync(fd);
				return {heldBy};
			}
			options.onWait?.(describeLabel(file));
			await waitForAnyLock([fd], options.abort);
		}
		ftruncateSync(fd, 0);
		writeSync(fd, `${JSON.stringify({holder, pid: process.pid, since: new Date().toISOString()})}\n`, 0);
	} catch (error) {
		closeSync(fd);
		throw error;
	}
	return heldLock(fd);
}

export type AdmissionOptions = {
	readonly checkout: string;
	readonly home: string;
	readonly slots?: number;
	/** false: refuse at once with NoSlotError instead of waiting. */
	readonly wait: boolean;
	/**
	 * Called when the run has waited `noticeAfterMs` (a one-shot timer, so a lock taken in a few
	 * milliseconds says nothing): with the slot holders, or null while queued behind another waiter.
	 */
	readonly onWait?: (holders: readonly SlotHolder[] | null) => void;
	readonly noticeAfterMs?: number;
	readonly abort?: AbortSignal;
};

/**
 * Takes an admission slot: the repository's writer lock (waiters queue on it), then the first of
 * N slot locks free without blocking; with none free, waits in the kernel for any of them while
 * holding the writer lock, so later runs queue behind. The writer lock is released once a slot is
 * held. All are flock locks the kernel drops when the holder dies.
 */
export async function acquireSlot(options: AdmissionOptions): Promise<SlotLease> {
	const slots = Math.min(options.slots ?? DEFAULT_SLOTS, MAX_SLOTS);
	const root = lockRootFor(options.checkout, options.home);
	makePrivateDir(root);
	const slotFile = (slot: number): string => join(root, `slot-${slot}.lock`);
	const holdersOf = (): SlotHolder[] => Array.from({length: slots}, (_, slot) => readHolder(slotFile(slot), slot));
	const writer = openSync(join(root, 'writer.lock'), 'a+', PRIVATE_FILE_MODE);
	const fds: number[] = [];
	try {
		if (!tryLock(writer)) {
			if (!options.wait) throw new NoSlotError(options.checkout, slots, holdersOf(), true);
			await noticeWhileWaiting(waitForAnyLock([writer], options.abort), () => options.onWait?.(null), options.noticeAfterMs);
		}
		for (let slot = 0; slot < slots; slot += 1) fds.push(openSync(slotFile(slot), 'a+', PRIVATE_FILE_MODE));
		let won = fds.findIndex(fd => tryLock(fd));
		if (won < 0) {
			if (!options.wait) throw new NoSlotError(options.checkout, slots, holdersOf(), false);
			won = await noticeWhileWaiting(
				waitForAnyLock(fds, options.abort),
				() => options.onWait?.(holdersOf()),
				options.noticeAfterMs,
			);
		}
		const fd = fds[won] as number;
		fds.splice(won, 1);
		return lease(won, root, fd);
	} finally {
		for (const fd of fds) closeSync(fd);
		closeSync(writer);
	}
}

/** Default delay before a waiting run says so. */
const NOTICE_AFTER_MS = 250;

async function noticeWhileWaiting<T>(wait: Promise<T>, notice: () => void, afterMs = NOTICE_AFTER_MS): Promise<T> {
	const timer = setTimeout(notice, afterMs);
	try {
		return await wait;
	} finally {
		clearTimeout(timer);
	}
}

function lease(slot: number, root: string, fd: number): SlotLease {
	let isHeld = true;
	const write = (holder: {taskId: string | null; title: string | null}): void => {
		ftruncateSync(fd, 0);
		writeSync(fd, `${JSON.stringify({pid: process.pid, ...holder, since: new Date().toISOString()})}\n`, 0);
	};
	write({taskId: null, title: null});
	return {
		slot,
		root,
		label: holder => {
			if (isHeld) write(holder);
		},
		release() {
			if (!isHeld) return;
			isHeld = false;
			closeSync(fd);
		},
	};
}
