import type { PhotoUnfitDevice } from '@svc/shared';
import { Op } from 'sequelize';
import type { AppContext } from '../../platform/context.js';
import { loadSpaceTree } from '../../spaces/tree.js';
import { deviceSpaces } from '../../sync/planning/diff.js';
import { profileKey, profileOf } from './profile.js';
import type { DevicePhoto } from './service.js';

type Deps = Pick<AppContext, 'models' | 'photoVariants'>;

/**
 * The devices that will receive this person (enabled, of the organization, in a space the
 * person has access to or below it) and cannot take the photo `sha256`, with the reason: what
 * the upload answer and the person page say. Each profile's answer is the cached variant (made
 * now if new, so the first push finds it ready).
 */
export async function unfitDevices(
  deps: Deps,
  person: { id: string; organizationId: string },
  sha256: string,
): Promise<PhotoUnfitDevice[]> {
  const { models } = deps;
  const devices = await models.Device.findAll({
    where: {
      organizationId: person.organizationId,
      enabled: true,
      spaceId: { [Op.ne]: null },
      [Op.or]: [
        { maxPhotoBytes: { [Op.ne]: null } },
        { maxPhotoPixels: { [Op.ne]: null } },
        { minPhotoSide: { [Op.ne]: null } },
        { photoBaseline420: true },
      ],
    },
    order: [['sn', 'ASC']],
  });
  if (devices.length === 0) return [];
  const access = new Set(
    (
      await models.PersonSpace.findAll({
        attributes: ['spaceId'],
        where: { personId: person.id },
        raw: true,
      })
    ).map((a) => a.spaceId),
  );
  const tree = await loadSpaceTree(deps, person.organizationId);
  const answers = new Map<string, Promise<Extract<DevicePhoto, { problem: string }> | undefined>>();
  const unfit: PhotoUnfitDevice[] = [];
  for (const device of devices) {
    if (!deviceSpaces(device, tree).some((s) => access.has(s))) continue;
    const profile = profileOf(device);
    const key = profileKey(profile);
    let answer = answers.get(key);
    if (!answer) {
      answer = deps.photoVariants
        .photoFor(sha256, profile)
        .then((p) => (p && 'problem' in p ? p : undefined));
      answers.set(key, answer);
    }
    const problem = await answer;
    if (problem) {
      unfit.push({
        deviceId: device.id,
        sn: device.sn,
        name: device.name,
        message: `Device ${device.sn} "${device.name}": ${problem.problem}`,
        code: problem.fit.code,
        params: problem.fit.params,
      });
    }
  }
  return unfit;
}
