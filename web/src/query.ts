import { QueryClient, keepPreviousData, useQuery, type QueryKey } from '@tanstack/react-query';
import { ApiError } from './api';
import { describeError } from './messages';

/**
 * Server state lives in TanStack Query. The live stream (`live.tsx`) invalidates the keys its
 * messages concern, so pages never poll for what the stream reports.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not get better by asking again; a network blip or a 503 may.
      retry: (count, error) =>
        count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
      refetchOnWindowFocus: false,
      staleTime: 5_000,
    },
  },
});

/** Query keys, one place: invalidations name the same arrays the pages load with. */
export const keys = {
  heartbeat: ['heartbeat'] as const,
  spaces: ['spaces'] as const,
  devices: ['devices'] as const,
  device: (id: string) => ['devices', id] as const,
  people: ['people'] as const,
  person: (id: string) => ['people', 'one', id] as const,
  personSync: (id: string) => ['people', 'sync', id] as const,
  photoFit: (id: string) => ['people', 'photo-fit', id] as const,
  events: ['events'] as const,
  sync: ['sync'] as const,
  discovery: ['discovery'] as const,
  administrators: ['administrators'] as const,
  organizations: ['organizations'] as const,
  panel: ['panel'] as const,
  enrollmentChanges: ['enrollment-changes'] as const,
  enrollmentChange: (id: string) => ['enrollment-changes', 'one', id] as const,
  audit: ['audit'] as const,
  imports: ['imports'] as const,
  settings: ['settings'] as const,
};

export interface Loaded<T> {
  data: T | null;
  /** Plain-language error of the last attempt, or null. */
  error: string | null;
  loading: boolean;
  /** Loads again (keeps the data shown until the answer arrives). */
  reload: () => void;
}

/**
 * `useQuery` in the shape the pages render: data or null, errors in plain words.
 */
export function useApiQuery<T>(
  queryKey: QueryKey,
  load: (signal: AbortSignal) => Promise<T>,
  {
    keepPrevious = false,
    refetchInterval,
    ...options
  }: {
    enabled?: boolean;
    /** Milliseconds, or from the last answer: a number while it is worth asking again. */
    refetchInterval?: number | ((data: T | undefined) => number | false);
    /** Keep the last answer shown while a new key loads (search boxes, pages). */
    keepPrevious?: boolean;
  } = {},
): Loaded<T> {
  const query = useQuery<T>({
    queryKey,
    queryFn: ({ signal }) => load(signal),
    placeholderData: keepPrevious ? keepPreviousData : undefined,
    ...options,
    refetchInterval:
      typeof refetchInterval === 'function'
        ? (query) => refetchInterval(query.state.data)
        : refetchInterval,
  });
  return {
    data: query.data ?? null,
    error: query.error === null ? null : describeError(query.error, 'other'),
    loading: query.isFetching,
    reload: () => void query.refetch(),
  };
}
