/** The recognition answers' schemas live in `@svc/shared` (the site parses them too). */
export {
  deliveryOut,
  recognitionEventOut,
  recognitionEventList,
  recognitionFilter,
  recognitionQuery,
  retentionQuery,
  retentionSetting,
  type RecognitionEventOut,
  type RecognitionFilter,
  type RetentionSetting,
} from '@svc/shared';
