export function sqlShape(sql: string): string;
export function mysql8SyntaxError(sql: string): string | null;
export function readCaptured(dir: string): string[];
