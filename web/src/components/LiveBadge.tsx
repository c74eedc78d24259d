import { Badge } from '@mantine/core';
import { useLiveStatus, type LiveStatus } from '../live';

const liveLabel: Record<LiveStatus, { text: string; color: string }> = {
  connecting: { text: 'Connecting', color: 'gray' },
  live: { text: 'Live', color: 'green' },
  reconnecting: { text: 'Reconnecting', color: 'orange' },
};

/** Whether the page's data follows the live stream right now. */
export function LiveBadge() {
  const live = liveLabel[useLiveStatus()];
  return (
    <Badge color={live.color} variant="dot" size="lg" data-testid="live-status" role="status">
      {live.text}
    </Badge>
  );
}
