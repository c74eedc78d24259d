import type { AppContext } from '../../platform/context.js';
import { profileKey, type PhotoProfile } from '../../photos/variants/profile.js';
import type { TaskRow } from '../tasks/rows.js';
import { directReads, type PushPerson, type PushReads, type SentPhoto } from './push.js';
import { readPeople } from './store/people.js';
import { PEOPLE_CACHE, PEOPLE_QUERY, PHOTO_CACHE_CHARS } from '../knobs.js';

type Deps = Pick<AppContext, 'sync' | 'photoVariants'>;

/**
 * Reads shared by every device of one worker run. Photos are content-addressed, so a hash and
 * a device profile name the same bytes for the whole run. A person is read once for all the devices
 * that push them (a backfill pushes the same people to every device), and read again when a
 * task read aims at a newer version than the one kept, so an edit is never pushed stale.
 */
export class RunReads implements PushReads {
  private readonly photos = new Map<string, Promise<SentPhoto | undefined>>();
  private readonly people = new Map<string, PushPerson>();
  private photoChars = 0;
  private readonly direct: PushReads;

  constructor(
    private readonly deps: Deps,
    private readonly peopleKept = PEOPLE_CACHE,
  ) {
    this.direct = directReads(deps);
  }

  /** Reads the people of these tasks that are not kept at (at least) the task's version. */
  async prefetch(tasks: readonly TaskRow[]): Promise<void> {
    const ids = new Set<string>();
    for (const t of tasks) {
      if (t.action !== 'put') continue;
      const kept = this.people.get(t.personId);
      if (!kept || kept.version < t.personVersion) ids.add(t.personId);
    }
    if (ids.size === 0) return;
    // The people kept longest go first (a Map iterates in insertion order): the devices of a
    // backfill move through the people together, so those are the ones every device has
    // pushed. Clearing everything instead made every device read its next reads' people
    // again, once per device.
    let over = this.people.size + ids.size - this.peopleKept;
    for (const id of this.people.keys()) {
      if (over-- <= 0) break;
      this.people.delete(id);
    }
    const all = [...ids];
    for (let i = 0; i < all.length; i += PEOPLE_QUERY) {
      for (const person of await readPeople(this.deps, all.slice(i, i + PEOPLE_QUERY))) {
        // Read again at a newer version: kept as the newest entry.
        this.people.delete(person.id);
        this.people.set(person.id, person);
      }
    }
  }

  async person(id: string): Promise<PushPerson | null> {
    return this.people.get(id) ?? (await this.direct.person(id));
  }

  photo(sha256: string, profile: PhotoProfile): Promise<SentPhoto | undefined> {
    return this.cached(this.photos, `${profileKey(profile)}:${sha256}`, async () => {
      const photo = await this.direct.photo(sha256, profile);
      const chars = photo && 'base64' in photo ? photo.base64.length : 0;
      this.photoChars += chars;
      if (this.photoChars > PHOTO_CACHE_CHARS) {
        this.photos.clear();
        this.photoChars = chars;
      }
      return photo;
    });
  }

  private cached<T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
    let value = map.get(key);
    if (!value) {
      value = load();
      map.set(key, value);
      // A failed read is not remembered: the next push tries again.
      value.catch(() => map.delete(key));
    }
    return value;
  }
}
