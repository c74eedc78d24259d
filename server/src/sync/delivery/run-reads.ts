import type { AppContext } from '../../context.js';
import type { FileRow } from '../../db/business-models.js';
import type { TaskRow } from './due-tasks.js';
import { directReads, type PushPerson, type PushReads } from './push.js';
import { readPeople } from './store.js';
import { PEOPLE_CACHE, PEOPLE_QUERY, PHOTO_CACHE_CHARS } from '../knobs.js';

type Deps = Pick<AppContext, 'sync' | 'photos'>;

/**
 * Reads shared by every device of one worker run. Photos and file rows are content-addressed,
 * so a hash names the same bytes for the whole run. A person is read once for all the devices
 * that push them (a backfill pushes the same people to every device), and read again when a
 * task read aims at a newer version than the one kept, so an edit is never pushed stale.
 */
export class RunReads implements PushReads {
  private readonly photos = new Map<string, Promise<string | undefined>>();
  private readonly files = new Map<string, Promise<FileRow | null>>();
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

  file(sha256: string): Promise<FileRow | null> {
    // A run lasts as long as there is work: what it keeps is bounded.
    if (this.files.size >= PEOPLE_CACHE) this.files.clear();
    return this.cached(this.files, sha256, () => this.direct.file(sha256));
  }

  photoBase64(sha256: string): Promise<string | undefined> {
    return this.cached(this.photos, sha256, async () => {
      const photo = await this.direct.photoBase64(sha256);
      this.photoChars += photo?.length ?? 0;
      if (this.photoChars > PHOTO_CACHE_CHARS) {
        this.photos.clear();
        this.photoChars = photo?.length ?? 0;
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
