import {describe, expect, it} from 'vitest';
import {isPastPassBackLimit, passBacksSinceHandover} from '../../src/core/contract/caps.ts';

const worker = (passedBack: boolean) => ({handedOverByPerson: false, passedBack});
const person = (passedBack: boolean) => ({handedOverByPerson: true, passedBack});

describe('the pass-back limit rule', () => {
	it('counts the passes back since a person last handed the contract over, that claim included', () => {
		expect(passBacksSinceHandover([])).toBe(0);
		expect(passBacksSinceHandover([worker(true), worker(true), worker(false)])).toBe(2);
		expect(passBacksSinceHandover([worker(true), worker(true), person(true), worker(true)])).toBe(2);
		expect(passBacksSinceHandover([worker(true), worker(true), worker(true), person(false)])).toBe(0);
	});

	it('is past the limit only beyond it: two passes back are within the default of 2, the third is not', () => {
		expect(isPastPassBackLimit(2, 2)).toBe(false);
		expect(isPastPassBackLimit(3, 2)).toBe(true);
		expect(isPastPassBackLimit(1, 1)).toBe(false);
	});
});
