import { WarningCode, type ServiceWarning } from '@svc/shared';
import { Op } from 'sequelize';
import type { Clock } from '../platform/clock.js';
import type { DeviceRow } from '../platform/db/business-models.js';
import type { Models } from '../platform/db/models.js';
import type { Job } from '../platform/jobs/registry.js';
import type { Logger } from '../platform/logger.js';

/** A device clock further than this from ours is a warning (on the device and the heartbeat). */
export const CLOCK_DRIFT_WARNING_MS = 60_000;
/**
 * An event's time is the moment of recognition, so its delivery delay counts as drift (an
 * event buffered while the network was down looks like a slow clock). A heartbeat carrying
 * `time` measures better: while one is this recent, events do not overwrite it.
 */
const HEARTBEAT_MEASURE_PREFERRED_MS = 10 * 60_000;
/** An event measure is written at most this often per device, unless the drift moved. */
const EVENT_WRITE_EVERY_MS = 60_000;
const EVENT_WRITE_ON_CHANGE_MS = 1_000;
const REFRESH_EVERY_MS = 30_000;
/** Devices named in the heartbeat's warning; the rest are counted. */
const NAMED_IN_WARNING = 5;

/**
 * An event time further than this from our receive time is not believed: kept as the device's
 * reported time, with the receive time as the event's time, so that a wrong clock (1970, 2099)
 * can neither backdate an event into the next purge nor keep one past every purge.
 */
export const EVENT_TIME_TOLERANCE_MS = 24 * 60 * 60_000;

/** The event's time and, when the device's was out of tolerance, what the device said. */
export function eventTimes(
  deviceTime: Date,
  receivedAt: Date,
): { time: Date; reportedTime: Date | null } {
  return Math.abs(deviceTime.getTime() - receivedAt.getTime()) > EVENT_TIME_TOLERANCE_MS
    ? { time: receivedAt, reportedTime: deviceTime }
    : { time: deviceTime, reportedTime: null };
}

export type ClockSource = 'heartbeat' | 'event';
export type ClockFields = Pick<DeviceRow, 'clockDriftMs' | 'clockCheckedAt' | 'clockSource'>;

interface Measure {
  driftMs: number;
  at: Date;
  source: ClockSource;
}

type Drifting = Map<string, { sn: string; driftMs: number }>;

export function driftWarning(
  device: Pick<DeviceRow, 'sn' | 'clockDriftMs'>,
): ServiceWarning | null {
  const drift = device.clockDriftMs;
  // A device row just created carries no clock columns at all (undefined, not null).
  if (drift == null || Math.abs(drift) <= CLOCK_DRIFT_WARNING_MS) return null;
  return {
    code: WarningCode.clockDrift,
    params: { sn: device.sn, driftMs: drift },
    message: `The clock of device ${device.sn} is ${describe(drift)} the central service's: its event times are off by as much; set its time (NTP).`,
  };
}

function describe(driftMs: number): string {
  const s = Math.round(Math.abs(driftMs) / 1000);
  const amount =
    s >= 172_800
      ? `${Math.round(s / 86_400)} days`
      : s >= 7200
        ? `${Math.round(s / 3600)} h`
        : `${s} s`;
  return `${amount} ${driftMs > 0 ? 'ahead of' : 'behind'}`;
}

/**
 * Device clock drift: the device's own time minus our receive time, measured from heartbeats
 * that carry `time` and from recognition events. The device's times are kept as evidence
 * (events keep `time` and `receivedAt`); this says how far to trust them. Which devices drift
 * is kept in memory for the heartbeat's warnings, refreshed from the database so every process
 * agrees.
 */
export class DeviceClocks implements Job {
  readonly name = 'device-clocks';
  private readonly written = new Map<string, Measure>();
  private drifting: Drifting = new Map();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: { models: Models; clock: Clock; logger: Logger }) {}

  /** The clock columns a heartbeat writes along with lastHeartbeatAt (none without `time`). */
  fromHeartbeat(
    device: Pick<DeviceRow, 'id' | 'sn'>,
    deviceTime: string | undefined,
    receivedAt: Date,
  ): Partial<ClockFields> {
    if (deviceTime === undefined) return {};
    const driftMs = Math.round(new Date(deviceTime).getTime() - receivedAt.getTime());
    this.note(device, { driftMs, at: receivedAt, source: 'heartbeat' });
    return { clockDriftMs: driftMs, clockCheckedAt: receivedAt, clockSource: 'heartbeat' };
  }

  /** Measures from an accepted event; writes only when it says something new. */
  async fromEvent(
    device: Pick<DeviceRow, 'id' | 'sn'> & Partial<ClockFields>,
    eventTime: Date,
    receivedAt: Date,
  ): Promise<void> {
    const driftMs = Math.round(eventTime.getTime() - receivedAt.getTime());
    const last = this.written.get(device.id) ?? fromRow(device);
    if (
      last?.source === 'heartbeat' &&
      receivedAt.getTime() - last.at.getTime() < HEARTBEAT_MEASURE_PREFERRED_MS
    ) {
      return;
    }
    if (
      last &&
      receivedAt.getTime() - last.at.getTime() < EVENT_WRITE_EVERY_MS &&
      Math.abs(last.driftMs - driftMs) < EVENT_WRITE_ON_CHANGE_MS
    ) {
      return;
    }
    this.note(device, { driftMs, at: receivedAt, source: 'event' });
    await this.deps.models.Device.update(
      { clockDriftMs: driftMs, clockCheckedAt: receivedAt, clockSource: 'event' },
      { where: { id: device.id } },
    );
  }

  /** For the heartbeat's details: one line naming the drifting devices, or none. */
  warnings(): ServiceWarning[] {
    if (this.drifting.size === 0) return [];
    const worst = [...this.drifting.values()]
      .sort((a, b) => Math.abs(b.driftMs) - Math.abs(a.driftMs))
      .slice(0, NAMED_IN_WARNING);
    const named = worst.map((d) => `${d.sn} (${describe(d.driftMs)})`);
    const more = this.drifting.size - named.length;
    const limitS = CLOCK_DRIFT_WARNING_MS / 1000;
    return [
      {
        code: WarningCode.clockDriftDevices,
        params: {
          count: this.drifting.size,
          limitS,
          devices: worst.map((d) => d.sn).join(', '),
          more,
        },
        message: `${this.drifting.size} device clock(s) off by more than ${limitS} s: ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`,
      },
    ];
  }

  async refresh(): Promise<void> {
    const rows = await this.deps.models.Device.findAll({
      attributes: ['id', 'sn', 'clockDriftMs'],
      where: {
        enabled: true,
        [Op.or]: [
          { clockDriftMs: { [Op.gt]: CLOCK_DRIFT_WARNING_MS } },
          { clockDriftMs: { [Op.lt]: -CLOCK_DRIFT_WARNING_MS } },
        ],
      },
      raw: true,
    });
    const next: Drifting = new Map();
    for (const r of rows) next.set(r.id, { sn: r.sn, driftMs: Number(r.clockDriftMs) });
    this.drifting = next;
  }

  async start(): Promise<void> {
    await this.refresh();
    const tick = () => {
      this.running = this.refresh()
        .catch((err: unknown) => this.deps.logger.warn({ err }, 'device clock refresh failed'))
        .finally(() => {
          this.running = undefined;
          if (this.timer) this.timer = setTimeout(tick, REFRESH_EVERY_MS).unref();
        });
    };
    this.timer = setTimeout(tick, REFRESH_EVERY_MS).unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private note(device: Pick<DeviceRow, 'id' | 'sn'>, measure: Measure): void {
    this.written.set(device.id, measure);
    if (Math.abs(measure.driftMs) > CLOCK_DRIFT_WARNING_MS) {
      this.drifting.set(device.id, { sn: device.sn, driftMs: measure.driftMs });
    } else {
      this.drifting.delete(device.id);
    }
  }
}

function fromRow(device: Partial<ClockFields>): Measure | undefined {
  if (device.clockDriftMs == null || !device.clockCheckedAt || !device.clockSource)
    return undefined;
  return { driftMs: device.clockDriftMs, at: device.clockCheckedAt, source: device.clockSource };
}
