/**
 * tq's version, stated once: package.json's. `tq --version`, `/server_info` and the library's
 * `TQ_VERSION` all read it from here. A JSON module import, not a file read, so the engine
 * core that serves `/server_info` stays free of I/O (and the build resolves it at the same
 * relative place: dist/ sits beside package.json as src/ does).
 */
import packageJson from '../package.json' with { type: 'json' };

export const TQ_VERSION: string = packageJson.version;
