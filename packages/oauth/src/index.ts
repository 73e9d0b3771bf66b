/**
 * @since 0.1.0
 */
export * as Authorizer from "./Authorizer.js"

/**
 * @since 0.1.0
 */
export * as BrowserAuthorizer from "./BrowserAuthorizer.js"

/**
 * @since 0.1.0
 */
export * as BrowserTokenStore from "./BrowserTokenStore.js"

/**
 * @since 0.1.0
 */
export * as Discovery from "./Discovery.js"

/**
 * @since 0.2.0
 */
export * as Dpop from "./Dpop.js"

/**
 * @since 0.2.0
 */
export * as HostResolver from "./HostResolver.js"

/**
 * @since 0.3.0
 */
export * as KeyFile from "./KeyFile.js"

/**
 * @since 0.2.0
 */
export * as KeyValueTokenStore from "./KeyValueTokenStore.js"

/**
 * @since 0.1.0
 */
export * as NodeTokenStore from "./NodeTokenStore.js"

/**
 * @since 0.1.0
 */
export * as OAuthClient from "./OAuthClient.js"

/**
 * @since 0.1.0
 */
export * as OAuthError from "./OAuthError.js"

/**
 * @since 0.1.0
 */
export * as Scopes from "./Scopes.js"

/**
 * @since 0.1.0
 */
export * as ServerAuth from "./ServerAuth.js"

/**
 * @since 0.1.0
 */
export * as TokenStore from "./TokenStore.js"

/**
 * @since 0.1.0
 */
export * as UrlPolicy from "./UrlPolicy.js"
