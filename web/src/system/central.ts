/**
 * Whether the central address was pushed and the terminals checked in, judged once from the
 * terminals heard (online now): the dashboard's first-session step and System Configuration
 * both say it from here, so they cannot disagree.
 */
export interface CentralState {
  /** Terminals heard now. */
  total: number;
  /** Of those, the ones that called this service since the push. */
  checkedIn: number;
  /** The central addresses the checked-in terminals announce (each its own network's). */
  announced: string[];
  /** Pushed and checked in: every terminal heard called in. */
  done: boolean;
}

export function centralState(
  nodes: readonly { online: boolean; central: string; lastCheckin: string | null }[],
): CentralState {
  const online = nodes.filter((n) => n.online);
  const checked = online.filter((n) => n.lastCheckin !== null);
  const announced = [...new Set(checked.map((n) => n.central).filter((c) => c !== ''))].sort();
  return {
    total: online.length,
    checkedIn: checked.length,
    announced,
    done: online.length > 0 && checked.length === online.length,
  };
}
