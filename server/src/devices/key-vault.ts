import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Transaction } from 'sequelize';
import type { Models } from '../platform/db/models.js';
import type { Clock } from '../platform/clock.js';

/**
 * The outbound copy of each device key. PROTOCOL §3 has the central service call the device
 * with the same key the device sends, but `devices.key_hash` only lets us *check* a key. So the
 * key is also kept sealed (AES-256-GCM, bound to the device id) with a secret that lives in a
 * 0600 file on the data volume (or the file DEVICE_KEY_SECRET_FILE names), not in the database:
 * a database dump or an SQL injection alone yields neither usable key. The sealed copy sits in `runtime_settings` under
 * `device_key.<device id>` because the schema has no column for it yet; this class is the only
 * code that knows where it is.
 */
export const SECRET_FILE = 'device-key-secret';
const SETTING_PREFIX = 'device_key.';
const FORMAT = 'v1';

export class DeviceKeyUnavailable extends Error {
  /**
   * True when it is this process's setup that cannot open the key (its DATA_DIR holds another
   * secret: a replica that does not share the files), not the stored key itself: another process
   * may push, and this one must say so rather than fail the device's tasks for good.
   */
  constructor(
    message: string,
    readonly local = false,
  ) {
    super(message);
  }
}

export interface DeviceKeyVaultDeps {
  models: Models;
  clock: Clock;
  dataDir: string;
  /** DEVICE_KEY_SECRET_FILE: the secret is read from there (never created) instead. */
  secretFile?: string | undefined;
}

export class DeviceKeyVault {
  private secret: Promise<Buffer> | undefined;

  constructor(private readonly deps: DeviceKeyVaultDeps) {}

  /** Keeps the key for calls to the device; replaces an older one (rotation). */
  async seal(deviceId: string, key: string, transaction?: Transaction): Promise<void> {
    const value = await this.sealWith(aad(deviceId), key);
    await this.deps.models.RuntimeSetting.upsert(
      {
        key: SETTING_PREFIX + deviceId,
        value: JSON.stringify(value),
        updatedAt: this.deps.clock.now(),
      },
      { transaction },
    );
  }

  /** The device's current key; throws DeviceKeyUnavailable when it cannot be recovered. */
  async open(deviceId: string): Promise<string> {
    const row = await this.deps.models.RuntimeSetting.findByPk(SETTING_PREFIX + deviceId);
    if (!row) {
      throw new DeviceKeyUnavailable(
        'no stored key for this device: rotate its key (POST /api/devices/{id}/key) and set the new one on the device',
      );
    }
    const value = String(JSON.parse(row.value));
    if (!value.startsWith(`${FORMAT}.`) || value.split('.').length !== 4) {
      throw new DeviceKeyUnavailable('the stored device key has an unknown format');
    }
    try {
      return await this.openWith(aad(deviceId), value);
    } catch {
      throw new DeviceKeyUnavailable(
        this.deps.secretFile
          ? `the stored device key cannot be opened with the secret in DEVICE_KEY_SECRET_FILE (${this.deps.secretFile}): give every server process the same secret, or rotate the device key`
          : `the stored device key cannot be opened with ${SECRET_FILE} in DATA_DIR (was the data volume replaced, or does another server process use another DATA_DIR?): share DATA_DIR between the server processes, or rotate the device key`,
        true,
      );
    }
  }

  async forget(deviceId: string, transaction?: Transaction): Promise<void> {
    await this.deps.models.RuntimeSetting.destroy({
      where: { key: SETTING_PREFIX + deviceId },
      transaction,
    });
  }

  /**
   * Seals another secret of the service (an administrator's TOTP secret) with the same key,
   * bound to `label`: the sealed text is useless without the data volume's secret.
   */
  sealText(label: string, text: string): Promise<string> {
    return this.sealWith(Buffer.from(`svc ${label}`, 'utf8'), text);
  }

  /** Opens what sealText sealed under the same label; throws when it cannot. */
  openText(label: string, value: string): Promise<string> {
    return this.openWith(Buffer.from(`svc ${label}`, 'utf8'), value);
  }

  private async sealWith(additional: Buffer, text: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.loadSecret(), iv);
    cipher.setAAD(additional);
    const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return [FORMAT, iv, cipher.getAuthTag(), sealed]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  private async openWith(additional: Buffer, value: string): Promise<string> {
    const [format, iv, tag, sealed] = value.split('.');
    if (format !== FORMAT || !iv || !tag || sealed === undefined) {
      throw new Error('unknown sealed format');
    }
    const decipher = createDecipheriv(
      'aes-256-gcm',
      await this.loadSecret(),
      Buffer.from(iv, 'base64url'),
    );
    decipher.setAAD(additional);
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(sealed, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }

  private loadSecret(): Promise<Buffer> {
    const { secretFile, dataDir } = this.deps;
    this.secret ??= (
      secretFile ? readSecret(secretFile) : readOrCreateSecret(path.join(dataDir, SECRET_FILE))
    ).catch((err: unknown) => {
      this.secret = undefined;
      throw err;
    });
    return this.secret;
  }
}

function aad(deviceId: string): Buffer {
  return Buffer.from(`svc device key ${deviceId}`, 'utf8');
}

async function readSecret(file: string): Promise<Buffer> {
  const secret = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  if (secret.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 secret`);
  return secret;
}

/**
 * Created once, exclusively: a hard link either wins or finds the file another process made,
 * so two processes never end up sealing with different secrets.
 */
async function readOrCreateSecret(file: string): Promise<Buffer> {
  try {
    return await readSecret(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(`${randomBytes(32).toString('base64')}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await rm(tmp, { force: true });
  }
  return readSecret(file);
}
