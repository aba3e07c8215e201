import {randomBytes} from 'node:crypto';
import {mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import type {Ledger} from './open-ledger.ts';
import {createIngestor, type IngestStats} from './ingest.ts';
import type {AgentSource} from './payload-schema.ts';

const SPOOL_SUFFIX = '.jsonl';

/**
 * Writes one envelope as its own file: written under a temporary name, then renamed, so a fold
 * never sees half a line and no two writers ever share a file.
 */
export function writeSpoolEnvelope(
	dir: string,
	envelope: {at: string; source: AgentSource; payload: unknown; pid?: number},
): string {
	mkdirSync(dir, {recursive: true});
	const id = `${Date.now()}-${process.pid}-${randomBytes(6).toString('hex')}`;
	const line = `${JSON.stringify({...envelope, id})}\n`;
	const temporary = join(dir, `.${id}.tmp`);
	const final = join(dir, `${id}${SPOOL_SUFFIX}`);
	writeFileSync(temporary, line, {flag: 'wx'});
	renameSync(temporary, final);
	return final;
}

/** Writes raw, unparseable hook input to the spool so the fold can record it as a reject. */
export function writeSpoolRaw(dir: string, raw: string): string {
	mkdirSync(dir, {recursive: true});
	const id = `${Date.now()}-${process.pid}-${randomBytes(6).toString('hex')}`;
	const temporary = join(dir, `.${id}.tmp`);
	const final = join(dir, `${id}${SPOOL_SUFFIX}`);
	writeFileSync(temporary, raw.endsWith('\n') ? raw : `${raw}\n`, {flag: 'wx'});
	renameSync(temporary, final);
	return final;
}

function listSpoolFiles(dir: string): string[] {
	try {
		return readdirSync(dir)
			.filter(name => name.endsWith(SPOOL_SUFFIX) && !name.startsWith('.'))
			.sort();
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
		throw error;
	}
}

/**
 * Folds every spool file into the ledger through the same path as `ingest`, then removes it.
 * Each line's dedup key makes the fold exactly-once: a crash after the commit and before the
 * unlink leaves a file whose second fold adds nothing.
 */
export function foldSpool(ledger: Ledger, dir: string, now = Date.now()): Omit<IngestStats, 'firstRejects'> & {files: number} {
	const total = {lines: 0, appended: 0, rejected: 0, rejectsAdded: 0, skipped: 0, files: 0};
	for (const name of listSpoolFiles(dir)) {
		const file = join(dir, name);
		let text: string;
		try {
			text = readFileSync(file, 'utf8');
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // another folder took it
			throw error;
		}
		const ingestor = createIngestor(ledger, {origin: `spool:${name}`, now});
		for (const line of text.split('\n')) ingestor.push(line);
		const stats = ingestor.finish();
		total.lines += stats.lines;
		total.appended += stats.appended;
		total.rejected += stats.rejected;
		total.rejectsAdded += stats.rejectsAdded;
		total.skipped += stats.skipped;
		total.files += 1;
		try {
			unlinkSync(file);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
		}
	}
	return total;
}
