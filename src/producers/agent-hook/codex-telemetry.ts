import {existsSync, readFileSync} from 'node:fs';
import {OTEL_KEY_HEADER} from '../../core/otel/claude-telemetry.ts';
import {writeAtomically} from './hooks-install.ts';

/**
 * `hooks install --codex --otel URL`: Codex's `[otel]` table in its config.toml (Codex reads its
 * telemetry settings there only, with full signal URLs: docs/otel.md), its log exporter pointed
 * at `controlroom otel receive` with the receiver's key among its headers. Seen with codex-cli
 * 0.169: an `otlp-http` exporter's `headers` go on every request. No TOML library: only our table
 * is read or written, found by the comment line above it.
 */

const OTEL_COMMENT = '# added by `controlroom hooks install --codex --otel`: Codex telemetry to controlroom (docs/otel.md)';

/** What installing did: changed the file, found it as wanted, or left another `[otel]` table alone. */
export type CodexTelemetryChange = {readonly file: string; readonly state: 'changed' | 'unchanged' | 'theirs'};

function tableLines(endpoint: string, key: string): string[] {
	// JSON string escapes are valid TOML basic-string escapes.
	const quote = (text: string): string => JSON.stringify(text);
	return [
		OTEL_COMMENT,
		'[otel]',
		`exporter = { otlp-http = { endpoint = ${quote(`${endpoint}/v1/logs`)}, protocol = "json", headers = { ${quote(OTEL_KEY_HEADER)} = ${quote(key)} } } }`,
	];
}

/** The lines of the `[otel]` table (its header to the next table's), or null when there is none. */
function otelTable(lines: readonly string[]): {from: number; to: number} | null {
	const from = lines.findIndex(line => /^\s*\[otel\]\s*(#.*)?$/.test(line));
	if (from < 0) return null;
	const next = lines.findIndex((line, index) => index > from && /^\s*\[/.test(line));
	return {from, to: next < 0 ? lines.length : next};
}

export function installCodexTelemetry(file: string, endpoint: string, key: string): CodexTelemetryChange {
	const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
	const lines = text.length > 0 ? text.split('\n') : [];
	const wanted = tableLines(endpoint, key);
	const table = otelTable(lines);
	if (table && lines[table.from - 1] !== OTEL_COMMENT) return {file, state: 'theirs'};
	if (table) {
		let end = table.to;
		while (end > table.from && (lines[end - 1] ?? '').trim() === '') end -= 1;
		const current = lines.slice(table.from - 1, end);
		if (current.join('\n') === wanted.join('\n')) return {file, state: 'unchanged'};
		lines.splice(table.from - 1, end - table.from + 1, ...wanted);
		writeAtomically(file, lines.join('\n'));
		return {file, state: 'changed'};
	}
	const body = lines.join('\n').replace(/\n*$/, '');
	writeAtomically(file, `${body === '' ? '' : `${body}\n\n`}${wanted.join('\n')}\n`);
	return {file, state: 'changed'};
}
