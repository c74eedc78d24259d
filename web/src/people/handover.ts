/**
 * A new person created while their photo was refused: the create form hands the chosen file,
 * and why it was refused, to that person's edit form, which takes its place (the address says
 * so, and a form that still read "new" would create them twice on the next Save). In memory
 * only: after a reload the edit form opens plain, as a browser keeps no chosen file.
 */
export interface RefusedPhoto {
  file: File;
  /** Why the service refused it, in the site's language. */
  problem: string;
  /** The face check refused it: "use it anyway" is offered. */
  byFaceCheck: boolean;
}

const handed = new Map<string, RefusedPhoto>();

export function handOver(personId: string, photo: RefusedPhoto): void {
  handed.set(personId, photo);
}

/** The refused photo handed over for this person, once. */
export function takeOver(personId: string): RefusedPhoto | null {
  const photo = handed.get(personId) ?? null;
  handed.delete(personId);
  return photo;
}
