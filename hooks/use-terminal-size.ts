import {useStdout} from 'ink';
import {useEffect, useState} from 'react';

/** Size used when the output is not a terminal (a pipe, a test's fake stdout). */
export const FALLBACK_SIZE = {width: 100, height: 30} as const;

type Size = {readonly width: number; readonly height: number};

function read(stdout: NodeJS.WriteStream): Size {
	return {width: stdout.columns || FALLBACK_SIZE.width, height: stdout.rows || FALLBACK_SIZE.height};
}

/** The terminal's columns and rows, updated on resize (Ink 6 has no useWindowSize). */
export function useTerminalSize(): Size {
	const {stdout} = useStdout();
	const [size, setSize] = useState(() => read(stdout));
	useEffect(() => {
		const onResize = () => setSize(read(stdout));
		stdout.on('resize', onResize);
		return () => {
			stdout.off('resize', onResize);
		};
	}, [stdout]);
	return size;
}
