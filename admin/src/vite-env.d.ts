/// <reference types="vite/client" />
declare module 'stylis';
