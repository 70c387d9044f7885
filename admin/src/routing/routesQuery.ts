/** The query of GET /internet-providers/{id}/routes, shared by the routes screen and the offer after a bundle is created. */
export const routesQueryKey = (providerId: string) => ['internet-providers', 'routes', providerId];
