import {createHash} from 'node:crypto';
import {existsSync, mkdirSync} from 'node:fs';
import {dirname, join, resolve} from 'node:path';
import {AgentFileError, readAgentFile, replaceOwnFile} from '../ledger/agent-files.ts';

// Screenshots handed in as evidence are kept by their content hash beside the ledger, so what a
// person looked at is exactly what was handed in, whatever happens to the worker's file later
// (docs/contracts.md, "Evidence kinds").

/** The largest screenshot kept: a screen is a few MB at most. */
const MAX_SCREENSHOT_BYTES = 20 * 1024 * 1024;

/** The image formats a screenshot may be, by their first bytes. */
const IMAGES: readonly {readonly extension: string; readonly matches: (bytes: Buffer) => boolean}[] = [
	{
		extension: 'png',
		matches: bytes => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
	},
	{extension: 'jpg', matches: bytes => bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff},
	{extension: 'gif', matches: bytes => bytes.subarray(0, 4).toString('latin1') === 'GIF8'},
	{
		extension: 'webp',
		matches: bytes => bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP',
	},
];

/** Where kept screenshots are: `screenshots/` beside the ledger. */
export function screenshotDir(ledgerFile: string): string {
	return join(dirname(ledgerFile), 'screenshots');
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Keeps a screenshot an agent handed in: read as any file an agent wrote (no link followed, no FIFO
 * waited on, bounded), refused unless it is a PNG, JPEG, GIF or WebP image, and copied to
 * `screenshots/SHA256.EXT` beside the ledger. Relative paths are read from `baseDir`.
 */
export function keepScreenshot(
	ledgerFile: string,
	baseDir: string,
	file: string,
): {readonly sha256: string; readonly kept: string} | {readonly problem: string} {
	let bytes: Buffer;
	try {
		bytes = readAgentFile(resolve(baseDir, file), MAX_SCREENSHOT_BYTES);
	} catch (error) {
		if (error instanceof AgentFileError) return {problem: error.detail};
		throw error;
	}
	const image = IMAGES.find(candidate => candidate.matches(bytes));
	if (image === undefined) return {problem: 'is not a PNG, JPEG, GIF or WebP image'};
	const hash = sha256(bytes);
	const folder = screenshotDir(ledgerFile);
	mkdirSync(folder, {recursive: true, mode: 0o700});
	const kept = join(folder, `${hash}.${image.extension}`);
	if (!existsSync(kept)) replaceOwnFile(kept, bytes);
	return {sha256: hash, kept};
}

/** Whether a kept screenshot still holds what was handed in (its name is its hash). */
export function isKeptIntact(kept: string, hash: string): boolean {
	try {
		return sha256(readAgentFile(kept, MAX_SCREENSHOT_BYTES)) === hash;
	} catch (error) {
		if (error instanceof AgentFileError) return false;
		throw error;
	}
}
