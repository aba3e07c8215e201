import {spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string): string => readFileSync(`${ROOT}${path}`, 'utf8');
const SCRIPT = 'scripts/board-picture.mjs';

describe('the README and the docs a user looks for', () => {
	it('links every page of docs/ from the README', () => {
		const readme = read('README.md');
		const pages = readdirSync(`${ROOT}docs`).filter(name => name.endsWith('.md'));
		expect(pages.length).toBeGreaterThan(20);
		const unlinked = pages.filter(page => !readme.includes(`](docs/${page})`));
		expect(unlinked, 'pages of docs/ the README does not link').toEqual([]);
		// And every page it links is there
		for (const [, target] of readme.matchAll(/\]\((docs\/[^)#]+)\)/g)) expect(existsSync(`${ROOT}${target}`), target).toBe(true);
	});

	it('shows a picture of the board drawn by this version of scripts/board-picture.mjs, from the demo', () => {
		const readme = read('README.md');
		expect(readme).toMatch(/!\[The board[^\]]*\]\(docs\/board\.svg\)/);
		const svg = read('docs/board.svg');
		const hash = createHash('sha256')
			.update(readFileSync(`${ROOT}${SCRIPT}`))
			.digest('hex');
		expect(svg, `docs/board.svg is out of date with ${SCRIPT}: run npm run docs:picture`).toContain(
			`data-generator="${SCRIPT}" data-script-sha256="${hash}"`,
		);
		// What the demo is for is in it: spend, a helper tree, a budget question, the burn rate
		expect(svg).toMatch(/>controlroom </);
		expect(svg).toMatch(/\$\d+\.\d{3}\*/);
		expect(svg).toContain('2 helpers: 2 ended');
		expect(svg).toContain('claude (budget)');
		expect(svg).toContain(' burn ');
		expect(read('package.json')).toContain(`"docs:picture": "node ${SCRIPT}"`);
	});

	it('draws a captured pane cell for cell, in its colours', () => {
		const drawn = spawnSync(process.execPath, [`${ROOT}${SCRIPT}`, '--from', `${ROOT}test/fixtures/picture/pane.ansi`], {
			encoding: 'utf8',
		});
		expect(drawn.status, drawn.stderr).toBe(0);
		const svg = drawn.stdout;
		// 8.4 px a cell, 16 px of margin: each run starts at its column
		expect(svg).toContain(
			'<text x="116.8" y="29.3" textLength="33.6" lengthAdjust="spacingAndGlyphs" fill="#e06c75" font-weight="bold">LOST</text>',
		);
		// Inverse video: the foreground becomes the background
		expect(svg).toContain('<rect x="192.4" y="16" width="42.0" height="17" fill="#d5dae3"/>');
		expect(svg).toContain('fill="#14181f"> w-1 </text>');
		// A 256-colour grey, and a background that is only spaces
		expect(svg).toContain('fill="rgb(138,138,138)">·dim</text>');
		expect(svg).toContain('<rect x="16.0" y="33" width="16.8" height="17" fill="#98c379"/>');
		expect(svg).not.toContain('\u001b');
	});

	it('names doctor and explain, installs in one line, and says how to uninstall everything', () => {
		const readme = read('README.md');
		expect(readme).toContain('controlroom doctor');
		expect(readme).toContain('controlroom explain');
		expect(readme).toMatch(
			/```sh\nnpm install && npm install -g --allow-scripts=\S+ "\.\/\$\(npm pack --silent \| tail -1\)"\n```/,
		);
		const uninstall = readme.split('## Uninstall')[1]?.split('\n## ')[0] ?? '';
		for (const part of [
			'controlroom hooks uninstall',
			'controlroom config path',
			'CONTROLROOM_HOME',
			'npm uninstall -g controlroom',
		])
			expect(uninstall).toContain(part);
		expect(readme).toMatch(/760 MB, measured with `du -sh`/);
	});

	it('has a changelog, ten troubles each with the command that shows it, and a privacy page naming what sends', () => {
		expect(read('CHANGELOG.md')).toMatch(/^# Changelog\n/);
		const troubles = read('docs/troubleshooting.md')
			.split(/\n## \d+\. /)
			.slice(1);
		expect(troubles).toHaveLength(10);
		for (const trouble of troubles) expect(trouble, trouble.split('\n')[0]).toMatch(/```sh\n[^`]*controlroom [^`]*```/);
		const privacy = read('docs/privacy.md');
		for (const command of ['`controlroom sync`', '`controlroom otel export`', '`serve`', '`web`'])
			expect(privacy).toContain(command);
		expect(privacy).toContain('127.0.0.1');
	});
});
