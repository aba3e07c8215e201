import {extname} from 'node:path';
import {isScalar, LineCounter, parseDocument, visit} from 'yaml';
import {AgentFileError, readAgentText} from '../ledger/agent-files.ts';

/** A contract file that cannot be read as YAML or Markdown at all; the message never quotes the file. */
export class ContractParseError extends Error {}

/**
 * The largest contract read (docs/contracts.md, "Limits"): a contract is a page or a few of
 * prose and lists; a file larger than this is refused before a byte of it is read.
 */
export const MAX_CONTRACT_BYTES = 1024 * 1024;
/** Aliases a YAML document may expand (the yaml package's own default): more is an alias bomb. */
const MAX_ALIASES = 100;

export type ContractDocument = {readonly format: 'yaml' | 'markdown'; readonly document: unknown};

/**
 * text: the body as is; list: bullet items (a paragraph is one item); map: YAML, `- key: value`
 * bullets merged; prose-or-map: a mapping when the body is one, else the body as prose;
 * decisions: YAML `{choice, over, why}` items, else the bullets as prose; pointers: YAML
 * `{pointer, note}` items, else one pointer per bullet.
 */
type SectionShape = 'text' | 'list' | 'map' | 'prose-or-map' | 'decisions' | 'pointers';
/**
 * Markdown headings and the field each fills (docs/contracts.md, "The Markdown guide"). Headings
 * are matched case-insensitively, punctuation ignored.
 */
const SECTIONS: Readonly<Record<string, {readonly path: readonly string[]; readonly shape: SectionShape}>> = {
	goal: {path: ['goal'], shape: 'text'},
	problem: {path: ['problem'], shape: 'text'},
	expected: {path: ['expected'], shape: 'text'},
	'what made it hard to see': {path: ['hard_to_see'], shape: 'text'},
	'hard to see': {path: ['hard_to_see'], shape: 'text'},
	'solution shape': {path: ['solution_shape'], shape: 'text'},
	context: {path: ['context'], shape: 'prose-or-map'},
	state: {path: ['state'], shape: 'prose-or-map'},
	'state snapshot': {path: ['state'], shape: 'prose-or-map'},
	constraints: {path: ['constraints'], shape: 'list'},
	scope: {path: ['scope', 'allowed'], shape: 'list'},
	'in scope': {path: ['scope', 'allowed'], shape: 'list'},
	'out of scope': {path: ['scope', 'excluded'], shape: 'list'},
	execution: {path: ['execution'], shape: 'map'},
	acceptance: {path: ['acceptance', 'checks'], shape: 'list'},
	'acceptance criteria': {path: ['acceptance', 'checks'], shape: 'list'},
	acceptors: {path: ['acceptance', 'acceptors'], shape: 'map'},
	'stop when': {path: ['stop_when'], shape: 'list'},
	delivery: {path: ['delivery'], shape: 'map'},
	reproduce: {path: ['reproduce'], shape: 'list'},
	steps: {path: ['steps'], shape: 'list'},
	decisions: {path: ['decisions'], shape: 'decisions'},
	'decisions and rationale': {path: ['decisions'], shape: 'decisions'},
	verification: {path: ['verification'], shape: 'list'},
	gotchas: {path: ['gotchas'], shape: 'list'},
	'environment specific': {path: ['environment_specific'], shape: 'map'},
	authority: {path: ['authority'], shape: 'map'},
	evidence: {path: ['evidence'], shape: 'pointers'},
	guardrails: {path: ['guardrails'], shape: 'map'},
	trace: {path: ['trace'], shape: 'map'},
	escalation: {path: ['escalation'], shape: 'prose-or-map'},
};

/**
 * Keys whose values are revisions: a short hash can be all digits (`base_revision: 5333014`) or
 * look like a float (`12e4567`), which YAML would read as a number and mangle. They are kept as
 * the text written.
 */
const REVISION_KEYS = new Set(['base_revision', 'patch_revision', 'commit', 'revision']);

/** Parses YAML, reporting only the position of an error: the parser's excerpt could show a secret. */
export function parseYaml(source: string, where: string, lineOffset = 0): unknown {
	try {
		return parseYamlUnguarded(source, where, lineOffset);
	} catch (error) {
		if (error instanceof ContractParseError) throw error;
		// What the parser throws rather than reports: too many aliases (an alias bomb), nesting
		// deeper than the stack. Said in one line; the parser's message could quote the file.
		if (error instanceof ReferenceError && /alias/i.test(error.message))
			throw new ContractParseError(`${where}: more than ${MAX_ALIASES} YAML aliases (an alias bomb?)`);
		if (error instanceof RangeError) throw new ContractParseError(`${where}: nested too deeply to read`);
		throw new ContractParseError(`${where}: not valid YAML`);
	}
}

function parseYamlUnguarded(source: string, where: string, lineOffset: number): unknown {
	const lineCounter = new LineCounter();
	const parsed = parseDocument(source, {prettyErrors: false, uniqueKeys: true, lineCounter});
	const error = parsed.errors[0];
	if (error) {
		const line = lineCounter.linePos(error.pos[0]).line + lineOffset;
		throw new ContractParseError(`${where}: not valid YAML (${error.code}) at line ${line}`);
	}
	visit(parsed, {
		Pair(_, pair) {
			const {key, value} = pair;
			if (!isScalar(key) || !isScalar(value) || !REVISION_KEYS.has(String(key.value))) return;
			if (typeof value.value === 'number' && value.source !== undefined && value.type === 'PLAIN') value.value = value.source;
		},
	});
	return parsed.toJS({maxAliasCount: MAX_ALIASES});
}

/**
 * The items of a Markdown list: bullets and numbered lines, each with its continuation lines
 * (indented or not, as Markdown reads a lazy continuation); a paragraph that is not a list is one item.
 */
function bulletItems(body: string): string[] {
	const items: string[] = [];
	let isOpen = false;
	for (const line of body.split('\n')) {
		const bullet = line.match(/^\s*(?:[-*+]|\d+[.)])\s+(.*)$/);
		if (bullet) {
			items.push(bullet[1] ?? '');
			isOpen = true;
		} else if (line.trim() === '') isOpen = false;
		else if (isOpen && items.length > 0) items[items.length - 1] += ` ${line.trim()}`;
		else {
			items.push(line.trim());
			isOpen = true;
		}
	}
	return items.map(item => item.trim()).filter(item => item !== '');
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

/** A mapping's keys are field names (`base_revision`), not the start of a sentence that has a colon in it. */
const hasFieldKeys = (value: Record<string, unknown>): boolean =>
	Object.keys(value).length > 0 && Object.keys(value).every(key => /^[A-Za-z_][\w.-]*$/.test(key));

/** Every line is `key: value`, `- key: value` or a continuation: the writer meant YAML, so its error is theirs to see. */
function looksLikeYaml(body: string): boolean {
	const lines = body.split('\n').filter(line => line.trim() !== '');
	return (
		lines.some(line => /^\s*(?:-\s+)?[A-Za-z_][\w.-]*\s*:(?:\s|$)/.test(line)) &&
		lines.every(line => /^\s*(?:-\s+)?[A-Za-z_][\w.-]*\s*:(?:\s|$)/.test(line) || /^\s/.test(line))
	);
}

/** `- key: value` bullets become a mapping; anything else is read as YAML. */
function sectionMap(body: string, where: string, lineOffset: number): unknown {
	const parsed = parseYaml(body, where, lineOffset);
	const isPairList =
		Array.isArray(parsed) &&
		parsed.length > 0 &&
		parsed.every(item => item !== null && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).length === 1);
	return isPairList ? Object.assign({}, ...(parsed as object[])) : parsed;
}

/** Context, state, escalation: a mapping of fields when written as one, else the prose as written. */
function proseOrMap(body: string, where: string, lineOffset: number): unknown {
	if (body === '') return body;
	let parsed: unknown;
	try {
		parsed = sectionMap(body, where, lineOffset);
	} catch (error) {
		if (looksLikeYaml(body)) throw error;
		return body;
	}
	return isMapping(parsed) && hasFieldKeys(parsed) ? parsed : body;
}

/** Decisions: YAML items of choice, over and why; anything else is read as prose bullets. */
function decisionItems(body: string, where: string, lineOffset: number): unknown {
	let parsed: unknown;
	try {
		parsed = parseYaml(body, where, lineOffset);
	} catch (error) {
		if (looksLikeYaml(body)) throw error;
		return bulletItems(body);
	}
	const isStructured =
		Array.isArray(parsed) &&
		parsed.length > 0 &&
		parsed.every(item => isMapping(item) && Object.keys(item).every(key => ['choice', 'over', 'why'].includes(key)));
	return isStructured ? parsed : bulletItems(body);
}

/** Evidence: YAML items of pointer and note, else one pointer per bullet. */
function pointerItems(body: string, where: string, lineOffset: number): unknown {
	let parsed: unknown;
	try {
		parsed = parseYaml(body, where, lineOffset);
	} catch {
		return bulletItems(body);
	}
	return Array.isArray(parsed) && parsed.every(item => isMapping(item) && 'pointer' in item) ? parsed : bulletItems(body);
}

/** A section's body read in its field's shape. */
function sectionValue(shape: SectionShape, text: string, where: string, line: number): unknown {
	switch (shape) {
		case 'text':
			return text;
		case 'list':
			return bulletItems(text);
		case 'map':
			return sectionMap(text, where, line);
		case 'prose-or-map':
			return proseOrMap(text, where, line);
		case 'decisions':
			return decisionItems(text, where, line);
		case 'pointers':
			return pointerItems(text, where, line);
	}
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
	let node = target;
	for (const key of path.slice(0, -1)) {
		const next = node[key];
		if (next === null || typeof next !== 'object' || Array.isArray(next)) node[key] = {};
		node = node[key] as Record<string, unknown>;
	}
	const last = path.at(-1) as string;
	const existing = node[last];
	const bothMaps = [existing, value].every(item => item !== null && typeof item === 'object' && !Array.isArray(item));
	node[last] = bothMaps ? {...(existing as object), ...(value as object)} : value;
}

/** Reads a Markdown contract: YAML front matter, then `## Section` bodies filling the same fields. */
export function parseMarkdownContract(source: string): Record<string, unknown> {
	const lines = source.replace(/\r\n/g, '\n').split('\n');
	let start = 0;
	let document: Record<string, unknown> = {};
	if (lines[0]?.trim() === '---') {
		const end = lines.findIndex((line, index) => index > 0 && line.trim() === '---');
		if (end < 0) throw new ContractParseError('front matter: no closing --- line');
		const front = parseYaml(lines.slice(1, end).join('\n'), 'front matter', 1);
		if (front !== null && front !== undefined && (typeof front !== 'object' || Array.isArray(front))) {
			throw new ContractParseError('front matter: expected a mapping of fields');
		}
		document = {...(front as Record<string, unknown> | null)};
		start = end + 1;
	}
	let heading: {title: string; line: number} | null = null;
	let body: string[] = [];
	let title: string | null = null;
	const flush = () => {
		if (heading === null) return;
		const name = heading.title
			.toLowerCase()
			.replace(/[^a-z0-9 ]+/g, ' ')
			.replace(/\s+/g, ' ')
			.trim();
		// HTML comments are the writer's notes to themselves (a template's hints): never part of a field.
		const text = body
			.join('\n')
			.replace(/<!--[\s\S]*?-->/g, '')
			.trim();
		const section = SECTIONS[name];
		const where = `section "${heading.title}"`;
		if (section === undefined) setPath(document, ['sections', heading.title], text);
		else setPath(document, section.path, sectionValue(section.shape, text, where, heading.line));
	};
	lines.slice(start).forEach((line, index) => {
		const match = line.match(/^##\s+(.+?)\s*#*\s*$/);
		// A `# Title` line before the first section names the contract when the front matter does not.
		const top = heading === null ? line.match(/^#\s+(.+?)\s*#*\s*$/) : null;
		if (top) title ??= top[1] ?? null;
		else if (match) {
			flush();
			heading = {title: match[1] ?? '', line: start + index + 1};
			body = [];
		} else body.push(line);
	});
	flush();
	if (title !== null && document['title'] === undefined) document['title'] = title;
	return document;
}

/** The form a contract's text is in: by the file's extension (`.md`, `.markdown`), else by its first line (`---` front matter, or a `#` heading). */
export function formatOf(source: string, file: string): 'yaml' | 'markdown' {
	const extension = extname(file).toLowerCase();
	if (extension === '.md' || extension === '.markdown') return 'markdown';
	if (extension !== '') return 'yaml';
	const first =
		source
			.replace(/^\uFEFF/, '')
			.split('\n', 1)[0]
			?.trim() ?? '';
	return first === '---' || /^#{1,2}\s/.test(first) ? 'markdown' : 'yaml';
}

/** A contract's text in either form (`format`, else formatOf). */
export function parseContractSource(
	source: string,
	file: string,
	format: 'yaml' | 'markdown' = formatOf(source, file),
): ContractDocument {
	if (source.includes('\0')) throw new ContractParseError(`${file}: holds a NUL byte: not a text file`);
	if (format === 'markdown') return {format, document: parseMarkdownContract(source)};
	return {format, document: parseYaml(source, file)};
}

/**
 * Reads a text file an agent may have written (a contract, its evidence): through agent-files.ts,
 * so a link is not followed, a FIFO or device is never waited on, a file over `maxBytes` is
 * refused unread, and anything but UTF-8 is refused (never guessed). One line naming the file.
 */
export function readContractText(file: string, maxBytes: number = MAX_CONTRACT_BYTES): string {
	try {
		return readAgentText(file, maxBytes);
	} catch (error) {
		if (error instanceof AgentFileError) throw new ContractParseError(error.message);
		throw error;
	}
}
