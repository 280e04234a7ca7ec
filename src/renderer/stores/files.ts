// Short-lived file links (files.url), kept until shortly before they expire.
import { create } from 'zustand';
import type { FileLink } from '../model';

export interface FilesState {
  links: Record<string, FileLink>;
}

export const filesStore = create<FilesState>(() => ({ links: {} }));
export const useFiles = filesStore;
export const fileKey = (fileId: string, variant: 'original' | 'thumb') => `${fileId}:${variant}`;
