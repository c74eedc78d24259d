import type { FaceAnalysis } from './detector.js';
import { descriptorBytes, descriptorDistance, descriptorOf, faceProblems } from './rules.js';

const one = (height: number, extra: Partial<FaceAnalysis> = {}): FaceAnalysis => ({
  width: 768,
  height: 1024,
  faces: [{ box: { x: 100, y: 100, width: height * 0.8, height }, score: 0.9 }],
  sharpness: 200,
  frontal: 0.9,
  descriptor: null,
  ...extra,
});
const server = { minHeight: 80, devicePx: 80, deviceSide: null, who: null };

describe('face rules', () => {
  test('a face high, sharp and frontal enough passes', () => {
    expect(faceProblems(one(200), server)).toEqual([]);
  });

  test('the reason names the face height and who needs more', () => {
    const gate = { minHeight: 120, devicePx: 120, deviceSide: null, who: 'Gate A' };
    expect(faceProblems(one(86), gate)).toEqual([
      'the face is 86 px high; devices in Gate A need 120: use a closer or larger photo',
    ]);
    expect(faceProblems(one(60), server)[0]).toBe(
      'the face is 60 px high; devices need 80: use a closer or larger photo',
    );
  });

  test('a device that receives the photo smaller counts the face at that size', () => {
    // 480 px of a 1024 px photo: a 200 px face is 94 px there, under the device's 120.
    const small = { minHeight: 256, devicePx: 120, deviceSide: 480, who: 'Lobby' };
    expect(faceProblems(one(200), small)).toEqual([
      'the face is 200 px high, 94 px in the 480 px photo the device receives; devices in Lobby need 120: use a closer or larger photo',
    ]);
  });

  test('blurred and turned faces are named, several problems at once', () => {
    expect(faceProblems(one(200, { sharpness: 40, frontal: 0.2 }), server)).toEqual([
      'the face is blurred (sharpness 40, at least 80 needed): use a sharper photo',
      'the face is turned away: use a photo looking straight at the camera',
    ]);
  });

  test('descriptors survive storage and measure distance', () => {
    const a = new Float32Array([0.5, -0.25, 0.125]);
    const b = descriptorOf(descriptorBytes(a))!;
    expect([...b]).toEqual([...a]);
    expect(descriptorDistance(a, new Float32Array([0.5, -0.25, 0.125 + 0.3]))).toBeCloseTo(0.3);
    expect(descriptorOf(Buffer.alloc(3))).toBeNull();
  });
});
