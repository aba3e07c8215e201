/**
 * Finds a JSON-RPC request's `id` in a line read piece by piece, without holding the line: the top
 * level object's `id` member wherever it sits, first, last or between a method and 10 MiB of
 * params (docs/effects.md, "Bounds"). Bytes are UTF-8: every byte that matters to the structure is
 * ASCII, and no byte of a multi-byte character is one of them, so it scans bytes as they come.
 */

/** The longest id text kept (a string id's characters, quotes and escapes included). */
const MAX_ID_TEXT = 210;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function isSpace(byte: number): boolean {
	return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

function isNumberByte(byte: number): boolean {
	return (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x65 || byte === 0x45;
}

/** Where the scan is, for the id: nowhere near it, after its key, before its value, inside it. */
type IdState = 'none' | 'colon' | 'value' | 'string' | 'number';

/** A scanner fed the line's pieces in order; `id()` is the top-level id seen so far (the last, as JSON.parse keeps). */
export class JsonRpcIdScanner {
	private depth = 0;
	private isTopObject = false;
	private inString = false;
	private isEscaped = false;
	/** At depth 1 of the top object, the next string is a member's name. */
	private isKeyNext = false;
	private isKey = false;
	private key: number[] = [];
	private state: IdState = 'none';
	private text: number[] = [];
	private found: string | number | null = null;

	/** Scans the next piece of the line. */
	feed(bytes: Uint8Array): void {
		for (const byte of bytes) this.step(byte);
	}

	/** The id found so far: a string of at most 200 characters or a safe integer; null when none is readable. */
	id(): string | number | null {
		if (this.state === 'number') this.finishValue();
		return this.found;
	}

	private step(byte: number): void {
		if (this.state === 'number') {
			if (isNumberByte(byte)) return this.capture(byte);
			this.finishValue();
		}
		if (this.inString) return this.stringByte(byte);
		if (isSpace(byte)) return;
		if (this.state === 'colon') {
			this.state = byte === COLON ? 'value' : 'none';
			if (byte === COLON) return;
		} else if (this.state === 'value') {
			if (byte === QUOTE) {
				this.state = 'string';
				this.text = [byte];
				this.inString = true;
				return;
			}
			if (isNumberByte(byte)) {
				this.state = 'number';
				this.text = [byte];
				return;
			}
			// null, an object or an array: not an id a reply can carry.
			this.state = 'none';
		}
		this.structure(byte);
	}

	private structure(byte: number): void {
		if (byte === QUOTE) {
			this.inString = true;
			this.isKey = this.depth === 1 && this.isTopObject && this.isKeyNext;
			this.isKeyNext = false;
			this.key = [];
			return;
		}
		if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
			if (this.depth === 0) this.isTopObject = byte === OPEN_OBJECT;
			this.depth += 1;
			if (this.depth === 1) this.isKeyNext = true;
			return;
		}
		if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
			this.depth = Math.max(0, this.depth - 1);
			return;
		}
		if (byte === COMMA && this.depth === 1) this.isKeyNext = true;
	}

	private stringByte(byte: number): void {
		const isEnd = !this.isEscaped && byte === QUOTE;
		this.isEscaped = !this.isEscaped && byte === BACKSLASH;
		if (this.state === 'string') {
			this.capture(byte);
			if (isEnd) {
				this.inString = false;
				this.finishValue();
			}
			return;
		}
		if (isEnd) {
			this.inString = false;
			if (this.isKey && this.key.length === 2 && this.key[0] === 0x69 && this.key[1] === 0x64) this.state = 'colon';
			this.isKey = false;
			return;
		}
		if (this.isKey && this.key.length < 3) this.key.push(byte);
	}

	private capture(byte: number): void {
		if (this.text.length <= MAX_ID_TEXT) this.text.push(byte);
	}

	private finishValue(): void {
		const isString = this.state === 'string';
		this.state = 'none';
		if (this.text.length > MAX_ID_TEXT) return;
		let value: unknown;
		try {
			value = JSON.parse(new TextDecoder().decode(Uint8Array.from(this.text)));
		} catch {
			return;
		}
		if (isString && typeof value === 'string' && value.length <= 200) this.found = value;
		else if (!isString && typeof value === 'number' && Number.isSafeInteger(value)) this.found = value;
	}
}
