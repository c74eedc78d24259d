import { Badge, Group } from '@mantine/core';
import type { PushResult } from '../../core/api.js';
import { STATUS_COLOR } from './colors.js';
import { useT } from '../i18n.js';

/**
 * A proof's badge, shown whole (Mantine cuts a narrow badge's label with an ellipsis, "SAV…",
 * and a proof must never be half-read): ✔ proven, ✘ failed, – not tried because an earlier
 * step failed (grey: neither a proof nor a failure of its own).
 */
export function ProofBadge({
  ok,
  label,
  failed,
  skipped = false,
}: {
  ok: boolean;
  label: string;
  failed?: string;
  skipped?: boolean | undefined;
}) {
  const t = useT();
  const color = ok ? STATUS_COLOR.ok : skipped ? STATUS_COLOR.neutral : STATUS_COLOR.bad;
  const text = ok ? `✔ ${label}` : skipped ? `– ${label}` : `✘ ${failed ?? label}`;
  return (
    <Badge
      color={color}
      variant={skipped ? 'outline' : 'filled'}
      title={skipped ? t('proof.notTried', { label }) : undefined}
      style={{ flexShrink: 0, minWidth: 'max-content', overflow: 'visible' }}
      styles={{ label: { overflow: 'visible', textOverflow: 'clip' } }}
    >
      {text}
    </Badge>
  );
}

/** A push's three proofs in order: saved, read back, checked in. */
export function ProofBadges({ push }: { push: PushResult }) {
  const t = useT();
  return (
    <Group gap={6} mt={4}>
      <ProofBadge
        ok={push.saved.ok}
        skipped={push.saved.skipped}
        label={t('proof.step.saved')}
        failed={t('proof.notSaved')}
      />
      <ProofBadge
        ok={push.readBack.ok}
        skipped={push.readBack.skipped}
        label={t('proof.step.readBack')}
        failed={t('proof.notReadBack')}
      />
      <ProofBadge
        ok={push.checkedIn.ok}
        skipped={push.checkedIn.skipped}
        label={t('proof.step.checkedIn')}
        failed={t('proof.notCheckedIn')}
      />
    </Group>
  );
}
