"""The sparkbloom JVM extension jar, bundled here by dev/setup."""
