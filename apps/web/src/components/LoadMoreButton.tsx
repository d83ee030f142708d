import { Button } from "./Button";

/** "Load more" under a paged list, while the server has more. */
export function LoadMoreButton({
  query,
  className = "",
}: {
  query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage(): unknown };
  className?: string;
}) {
  if (!query.hasNextPage) return null;
  return (
    <div className={className ? `flex justify-center ${className}` : "flex justify-center"}>
      <Button variant="secondary" busy={query.isFetchingNextPage} onClick={() => query.fetchNextPage()}>
        Load more
      </Button>
    </div>
  );
}
