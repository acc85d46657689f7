/**
 * Library UI state of library-playlists-account.md §3 and §4: the selected playlist and topic, the page size and
 * whether the content should animate in. Page load selects the playlist and topic and resets the page size to 10;
 * 'next page' adds one page.
 */
import { LIMITS, nextPageSize } from '@lectern/core';

export interface LibraryUiState {
  selectedCollectionId: string | null;
  selectedTopicSlug: string;
  pageSize: number;
  animateCollectionContent: boolean;
}

export type LibraryUiAction = { type: 'pageLoaded'; collectionId: string | null; topicSlug: string } | { type: 'nextPage' };

export const initialLibraryUi = (collectionId: string | null, topicSlug: string): LibraryUiState => ({
  selectedCollectionId: collectionId,
  selectedTopicSlug: topicSlug,
  pageSize: LIMITS.itemsPerPage,
  animateCollectionContent: true,
});

export function libraryUiReducer(state: LibraryUiState, action: LibraryUiAction): LibraryUiState {
  switch (action.type) {
    case 'pageLoaded':
      return initialLibraryUi(action.collectionId, action.topicSlug);
    case 'nextPage':
      return { ...state, pageSize: nextPageSize(state.pageSize), animateCollectionContent: false };
  }
}
