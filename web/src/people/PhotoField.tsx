import { Checkbox, FileInput, Image } from '@mantine/core';
import { MAX_PHOTO_UPLOAD_BYTES } from '@svc/shared';
import { useEffect, useState } from 'react';
import { useT } from '../i18n';
import { translateMessage } from '../i18n/errors';
import { uploadPhoto } from './api';
import type { RefusedPhoto } from './handover';

/** Why a chosen photo cannot be sent, judged in the browser before anything is saved. */
function photoProblem(file: File): string | null {
  if (file.size > MAX_PHOTO_UPLOAD_BYTES) {
    return translateMessage('photo_too_large', { max: MAX_PHOTO_UPLOAD_BYTES / 1024 / 1024 });
  }
  if (!['image/jpeg', 'image/png'].includes(file.type)) {
    return translateMessage('photo_not_image', { file: file.name });
  }
  return null;
}

/**
 * A local preview of the chosen photo, as a data: URL. A blob: URL is not enough under the
 * site's CSP: anything that reads the picture back (a screenshot or trace tool, an extension)
 * fetches it, and `connect-src 'self'` refuses blob: (the page then reports a CSP error).
 */
function usePreview(photo: File | null): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    setUrl(null);
    if (photo === null) return;
    const reader = new FileReader();
    reader.onload = () => {
      if (typeof reader.result === 'string') setUrl(reader.result);
    };
    reader.readAsDataURL(photo);
    return () => reader.abort();
  }, [photo]);
  return url;
}

/** The photo chosen in the person form, and what was said about it. */
export interface PhotoChoice {
  file: File | null;
  error: string | null;
  /** The face check refused this photo: the administrator may keep it anyway (audited). */
  faceRefused: boolean;
  acceptFace: boolean;
  /** The photo is on its way and the server's face check runs: it can take seconds. */
  sending: boolean;
  choose: (file: File | null) => void;
  setAcceptFace: (accept: boolean) => void;
  /** Why the chosen photo cannot be sent (said beside it too), or null. */
  check: () => string | null;
  /** The service refused the photo: said beside it; `byFaceCheck` offers "use it anyway". */
  refused: (message: string, byFaceCheck: boolean) => void;
  /** Sends the chosen photo for the saved person: null once stored, else what refused it. */
  send: (personId: string, file: File) => Promise<unknown>;
}

/** `refused`: a photo the service refused before this form opened, still chosen (./handover). */
export function usePhotoChoice(refused: RefusedPhoto | null = null): PhotoChoice {
  const [file, setFile] = useState<File | null>(refused?.file ?? null);
  const [error, setError] = useState<string | null>(refused?.problem ?? null);
  const [faceRefused, setFaceRefused] = useState(refused?.byFaceCheck ?? false);
  const [acceptFace, setAcceptFace] = useState(false);
  const [sending, setSending] = useState(false);
  return {
    file,
    error,
    faceRefused,
    acceptFace,
    sending,
    choose: (chosen) => {
      setFile(chosen);
      setError(chosen === null ? null : photoProblem(chosen));
      setFaceRefused(false);
      setAcceptFace(false);
    },
    setAcceptFace,
    check: () => {
      const problem = file === null ? null : photoProblem(file);
      if (problem !== null) setError(problem);
      return problem;
    },
    refused: (message, byFaceCheck) => {
      setFaceRefused(byFaceCheck);
      setError(message);
    },
    send: async (personId, photo) => {
      setSending(true);
      try {
        await uploadPhoto(personId, photo, faceRefused && acceptFace);
        return null;
      } catch (error) {
        return error;
      } finally {
        setSending(false);
      }
    },
  };
}

/** The person form's photo section: the file, "use it anyway" after the face check, a preview. */
export function PhotoField({ choice, hasPhoto }: { choice: PhotoChoice; hasPhoto: boolean }) {
  const t = useT();
  // A file refused in the browser is not previewed (it is no photo, or too large to decode).
  const preview = usePreview(choice.error === null ? choice.file : null);
  return (
    <>
      <FileInput
        label={hasPhoto ? t('people.form.replacePhoto') : t('people.photo')}
        description={t('people.form.photoHelp', { max: MAX_PHOTO_UPLOAD_BYTES / 1024 / 1024 })}
        accept="image/jpeg,image/png"
        value={choice.file}
        onChange={choice.choose}
        error={choice.error}
        clearable
        clearButtonProps={{ 'aria-label': t('people.form.clearPhoto') }}
      />
      {choice.faceRefused && (
        <Checkbox
          label={t('people.form.useAnyway')}
          description={t('people.form.useAnywayHelp')}
          checked={choice.acceptFace}
          onChange={(e) => choice.setAcceptFace(e.currentTarget.checked)}
        />
      )}
      {preview !== null && (
        <Image
          src={preview}
          alt={t('people.form.preview')}
          w={160}
          radius="sm"
          data-testid="photo-preview"
        />
      )}
    </>
  );
}
