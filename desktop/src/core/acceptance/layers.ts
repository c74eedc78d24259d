/** The seed's eight layers, in the order a site is accepted. */
export const LAYERS = [
  {
    id: 'services',
    title: 'Services',
    manual: "The host's deploy/status.sh reports every service up",
  },
  { id: 'web', title: 'Web site', manual: null },
  { id: 'central', title: 'Central service', manual: null },
  { id: 'data', title: 'Data', manual: null },
  { id: 'discovery', title: 'Discovery', manual: null },
  { id: 'terminals', title: 'Terminal configuration', manual: null },
  { id: 'sync', title: 'Synchronization', manual: null },
  {
    id: 'recognition',
    title: 'Recognition loop',
    manual: 'A person stood in front of the device and was recognized',
  },
] as const;

export type LayerId = (typeof LAYERS)[number]['id'];
export const LAYER_IDS = LAYERS.map((l) => l.id) as [LayerId, ...LayerId[]];

export interface Evidence {
  label: string;
  value: string;
  ok: boolean;
  /** A fact that holds but deserves a look: shown as a warning, never as a tick. */
  warning?: boolean;
}

export interface ManualConfirmation {
  who: string;
  at: string;
  note: string;
}

export type LayerStatus = 'pending' | 'passed' | 'failed';

export interface LayerResult {
  id: LayerId;
  title: string;
  /** What the technician confirms by hand in this layer, or null (all automated). */
  manualPrompt: string | null;
  status: LayerStatus;
  evidence: Evidence[];
  manual: ManualConfirmation | null;
  ranAt: string | null;
  error: string | null;
}

export interface AcceptanceState {
  layers: LayerResult[];
  /** The last report made from these layers, if any. */
  report: ReportState | null;
}

/** The last report: its result, whether the central service keeps it, whether it is current. */
export interface ReportState {
  sha256: string;
  createdAt: string;
  technician: string;
  site: string;
  summary: {
    layers: number;
    passed: number;
    failed: number;
    pending: number;
    warnings: number;
    /** Titles of the layers that failed, and of those never run before Finish. */
    failedTitles: string[];
    notRun: string[];
    /** The same layers by id (and those waiting for a hand confirmation); absent in old sessions. */
    failedIds?: string[];
    pendingIds?: string[];
    notRunIds?: string[];
  };
  /** When the central service stored the report under the digest it computed itself. */
  recorded: { sha256: string; at: string; by: string } | null;
  recordError: string | null;
  /** Why the report no longer matches the layers (a run, a confirmation, a push since), or null. */
  outdated: string | null;
  /** When it became outdated (absent in sessions kept before this was recorded). */
  outdatedAt?: string | null;
}

/** A layer passes when every automated fact holds and its manual part (if any) is confirmed. */
export function layerStatus(
  layer: Pick<LayerResult, 'evidence' | 'manual' | 'manualPrompt' | 'ranAt' | 'error'>,
): LayerStatus {
  if (layer.ranAt === null) return 'pending';
  if (layer.error !== null || layer.evidence.length === 0) return 'failed';
  if (!layer.evidence.every((e) => e.ok)) return 'failed';
  if (layer.manualPrompt !== null && layer.manual === null) return 'pending';
  return 'passed';
}

/** Masks an ID number for anything that leaves the laptop: the last 4 characters stay. */
export function maskId(idNumber: string): string {
  if (idNumber.length <= 4) return '•'.repeat(idNumber.length);
  return '•'.repeat(idNumber.length - 4) + idNumber.slice(-4);
}
