import { keyframes } from '@emotion/react';
import type { Animation } from '../theme/themeConfig';

const frames = (from: string) => keyframes`from { opacity: 0; transform: ${from}; } to { opacity: 1; transform: none; }`;

/** Route change animations of the customizer (docs/product.md section 2). */
const ANIMATION_FRAMES: Record<Exclude<Animation, ''>, ReturnType<typeof keyframes>> = {
  animate__fadeIn: frames('none'),
  animate__fadeInDown: frames('translate3d(0, -20px, 0)'),
  animate__fadeInUp: frames('translate3d(0, 20px, 0)'),
  animate__fadeInLeft: frames('translate3d(-20px, 0, 0)'),
  animate__fadeInRight: frames('translate3d(20px, 0, 0)'),
  animate__slideInDown: frames('translate3d(0, -100%, 0)'),
  animate__slideInLeft: frames('translate3d(-100%, 0, 0)'),
  animate__slideInRight: frames('translate3d(100%, 0, 0)'),
  animate__zoomIn: frames('scale3d(0.3, 0.3, 0.3)'),
};

export const animationSx = (animation: Animation) => (animation ? { animation: `${ANIMATION_FRAMES[animation]} 400ms ease-out both` } : {});
