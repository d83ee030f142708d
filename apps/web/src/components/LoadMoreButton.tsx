import { Button } from "./Button";

/** "Load more" under a paged list, while the server has more; not under an earlier answer kept on screen, whose cursor is another search's. */
export function LoadMoreButton({
  query,
  className = "",
}: {
  query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage(): unknown; isPlaceholderData?: boolean };
  className?: string;
}) {
  if (!query.hasNextPage || query.isPlaceholderData) return null;
  return (
    <div className={className ? `flex justify-center ${className}` : "flex justify-center"}>
      <Button variant="secondary" busy={query.isFetchingNextPage} onClick={() => query.fetchNextPage()}>
        Load more
      </Button>
    </div>
  );
}
