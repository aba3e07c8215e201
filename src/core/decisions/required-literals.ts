/**
 * The words a JavaScript regular expression cannot match without (docs/decisions.md, "What the
 * hooks cost"): a list such that every string the pattern matches contains at least one of them,
 * or null when no such word is known. The hold hook's shell path lets a Bash call through without
 * starting Node only when its command holds none of the words of any pattern, so a word here must
 * truly be needed: whatever this parser does not understand for certain gives null (the call then
 * goes to Node, which runs the pattern itself). The pattern is read as `new RegExp(source)` reads
 * it: no flags, not in unicode mode (with the web-compatibility rules of Annex B).
 */

/** What a part of a pattern needs: the one text it matches (if it matches exactly one), and words one of which it needs. */
type Need = {readonly exact: string | null; readonly words: readonly string[] | null};

const NOTHING: Need = {exact: null, words: null};

/** Thrown where the parser is not sure: the whole pattern then needs nothing it knows of. */
class Unsure extends Error {}

const SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', '|']);

/** Whether a character may be a word's: printable ASCII (other characters may be written otherwise where the words are looked for). */
function isPlain(char: string): boolean {
	const code = char.charCodeAt(0);
	return code >= 0x20 && code < 0x7f;
}

/** Of two lists of words, the one that says more: its shortest word is longer (then: fewer words). */
function better(a: readonly string[] | null, b: readonly string[] | null): readonly string[] | null {
	if (a === null) return b;
	if (b === null) return a;
	const shortest = (words: readonly string[]): number => Math.min(...words.map(word => word.length));
	if (shortest(a) !== shortest(b)) return shortest(a) > shortest(b) ? a : b;
	return a.length <= b.length ? a : b;
}

class Parser {
	private at = 0;
	private readonly source: string;
	constructor(source: string) {
		this.source = source;
	}

	parse(): readonly string[] | null {
		const need = this.disjunction();
		if (this.at !== this.source.length) throw new Unsure('trailing text');
		const words = need.words;
		return words === null || words.some(word => word === '') ? null : words;
	}

	private peek(offset = 0): string | undefined {
		return this.source[this.at + offset];
	}

	private disjunction(): Need {
		const branches = [this.alternative()];
		while (this.peek() === '|') {
			this.at += 1;
			branches.push(this.alternative());
		}
		if (branches.length === 1) return branches[0] ?? NOTHING;
		// Any branch may be the one that matches: each must need a word for the whole to.
		if (branches.some(branch => branch.words === null)) return NOTHING;
		return {exact: null, words: [...new Set(branches.flatMap(branch => branch.words ?? []))]};
	}

	private alternative(): Need {
		let run = '';
		let isExact = true;
		let exact = '';
		let words: readonly string[] | null = null;
		const endRun = (): void => {
			if (run !== '') words = better(words, [run]);
			run = '';
		};
		while (this.at < this.source.length && this.peek() !== '|' && this.peek() !== ')') {
			const term = this.term();
			if (term.isZeroWidth) {
				endRun();
				continue;
			}
			const {need, min, isOne} = term;
			if (isOne && need.exact !== null) {
				run += need.exact;
				exact += need.exact;
				if (need.exact === '') endRun();
				continue;
			}
			endRun();
			isExact = false;
			if (min >= 1) words = better(words, need.words ?? (need.exact ? [need.exact] : null));
		}
		endRun();
		return {exact: isExact ? exact : null, words};
	}

	/** One atom and its quantifier; zero-width for assertions. */
	private term(): {need: Need; min: number; isOne: boolean; isZeroWidth: boolean} {
		const char = this.peek();
		if (char === '^' || char === '$') {
			this.at += 1;
			return {need: NOTHING, min: 0, isOne: false, isZeroWidth: true};
		}
		if (char === '\\' && (this.peek(1) === 'b' || this.peek(1) === 'B')) {
			this.at += 2;
			return {need: NOTHING, min: 0, isOne: false, isZeroWidth: true};
		}
		if (char === '(' && this.peek(1) === '?' && (this.peek(2) === '=' || this.peek(2) === '!')) {
			this.at += 3;
			this.disjunction();
			this.expect(')');
			// A lookahead may be quantified (Annex B): still zero-width.
			this.quantifier();
			return {need: NOTHING, min: 0, isOne: false, isZeroWidth: true};
		}
		if (char === '(' && this.peek(1) === '?' && this.peek(2) === '<' && (this.peek(3) === '=' || this.peek(3) === '!')) {
			this.at += 4;
			this.disjunction();
			this.expect(')');
			return {need: NOTHING, min: 0, isOne: false, isZeroWidth: true};
		}
		const need = this.atom();
		const quantifier = this.quantifier();
		return {need, min: quantifier?.min ?? 1, isOne: quantifier === null, isZeroWidth: false};
	}

	private expect(char: string): void {
		if (this.peek() !== char) throw new Unsure(`expected ${char}`);
		this.at += 1;
	}

	/** `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` (and a lazy `?` after): its least count; null when there is none. */
	private quantifier(): {min: number} | null {
		const char = this.peek();
		let min: number;
		if (char === '*' || char === '?') min = 0;
		else if (char === '+') min = 1;
		else if (char === '{') {
			const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
			// Not a quantifier: a literal brace (Annex B), read as an atom next.
			if (!match) return null;
			this.at += match[0].length - 1;
			min = Number(match[1]);
		} else return null;
		this.at += 1;
		if (this.peek() === '?') this.at += 1;
		return {min};
	}

	private atom(): Need {
		const char = this.peek();
		if (char === undefined) throw new Unsure('end of pattern');
		if (char === '.') {
			this.at += 1;
			return NOTHING;
		}
		if (char === '[') {
			this.characterClass();
			return NOTHING;
		}
		if (char === '(') return this.group();
		if (char === '\\') return this.escape();
		if (char === '*' || char === '+' || char === '?') throw new Unsure('nothing to repeat');
		this.at += 1;
		// `{`, `}` and `]` out of place are literal (Annex B); so is every character the syntax does not use.
		if (SYNTAX.has(char) && char !== '{') throw new Unsure(`unexpected ${char}`);
		return isPlain(char) ? {exact: char, words: [char]} : NOTHING;
	}

	private group(): Need {
		this.at += 1;
		if (this.peek() === '?') {
			if (this.peek(1) === ':') this.at += 2;
			else if (this.peek(1) === '<') {
				const end = this.source.indexOf('>', this.at);
				if (end < 0) throw new Unsure('unterminated group name');
				this.at = end + 1;
			} else throw new Unsure('a group of a kind not read here');
		}
		const need = this.disjunction();
		this.expect(')');
		return need;
	}

	/** Skips `[...]` (with its escapes), which needs no word: `[]` matches nothing, `[^]` anything. */
	private characterClass(): void {
		this.at += 1;
		if (this.peek() === '^') this.at += 1;
		if (this.peek() === ']') {
			this.at += 1;
			return;
		}
		while (this.at < this.source.length) {
			const char = this.peek();
			if (char === '\\') this.at += 2;
			else if (char === ']') {
				this.at += 1;
				return;
			} else this.at += 1;
		}
		throw new Unsure('unterminated class');
	}

	private escape(): Need {
		const next = this.peek(1);
		if (next === undefined) throw new Unsure('a lone backslash');
		this.at += 2;
		const named: Readonly<Record<string, string>> = {n: '\n', r: '\r', t: '\t', v: '\v', f: '\f'};
		if (next in named) return NOTHING;
		if (/[dDwWsS]/.test(next)) return NOTHING;
		// Escapes that read the characters after them (`\cJ`, `\x41`, `\u0041`, `\k<name>`, a back
		// reference or an octal `\012`): those characters are no literal words of their own.
		if (/[cxuk0-9]/.test(next)) throw new Unsure(`the escape \\${next}`);
		// Any other letter escaped is itself (Annex B), or a class: either way no word needed.
		if (/[A-Za-z]/.test(next)) return NOTHING;
		// A punctuation character escaped is itself.
		return isPlain(next) ? {exact: next, words: [next]} : NOTHING;
	}
}

/** The words `source` cannot match without, each as it must appear; null when none is known for certain. */
export function requiredLiterals(source: string): readonly string[] | null {
	try {
		new RegExp(source);
	} catch {
		return null;
	}
	try {
		return new Parser(source).parse();
	} catch (error) {
		if (error instanceof Unsure) return null;
		throw error;
	}
}
