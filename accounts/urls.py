"""/account/...: Django's auth views with the shop's templates and forms."""

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from core.throttle import throttled

from . import address_views, views
from .forms import ShopPasswordResetForm, ShopperLoginForm

app_name = "accounts"
urlpatterns = [
    path("", views.account, name="account"),
    # The address book (issue 44; addresses app).
    path("addresses/add/", address_views.add, name="address_add"),
    path("addresses/<str:pk>/", address_views.edit, name="address_edit"),
    path("addresses/<str:pk>/delete/", address_views.delete, name="address_delete"),
    path("addresses/<str:pk>/default/<str:kind>/", address_views.make_default, name="address_default"),
    path("signup/", throttled("signup")(views.signup), name="signup"),
    path("signup/sent/", views.signup_sent, name="signup_sent"),
    path("signup/confirm/<uidb64>/<token>/", views.signup_confirm, name="signup_confirm"),
    path("login/", auth_views.LoginView.as_view(
        template_name="accounts/login.html",
        authentication_form=ShopperLoginForm, redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", auth_views.PasswordChangeView.as_view(
        template_name="accounts/password_change_form.html",
        success_url=reverse_lazy("accounts:password_change_done")), name="password_change"),
    path("password/done/", auth_views.PasswordChangeDoneView.as_view(template_name="accounts/password_change_done.html"), name="password_change_done"),
    path("password/reset/", throttled("password_reset")(auth_views.PasswordResetView.as_view(
        template_name="accounts/password_reset_form.html", form_class=ShopPasswordResetForm,
        success_url=reverse_lazy("accounts:password_reset_done"),
        email_template_name="emails/password_reset.txt",
        html_email_template_name="emails/password_reset.html",
        subject_template_name="emails/password_reset_subject.txt")), name="password_reset"),
    path("password/reset/sent/", auth_views.PasswordResetDoneView.as_view(template_name="accounts/password_reset_done.html"), name="password_reset_done"),
    path("password/reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(
        template_name="accounts/password_reset_confirm.html",
        success_url=reverse_lazy("accounts:password_reset_complete")), name="password_reset_confirm"),
    path("password/reset/done/", auth_views.PasswordResetCompleteView.as_view(template_name="accounts/password_reset_complete.html"),
         name="password_reset_complete"),
]
